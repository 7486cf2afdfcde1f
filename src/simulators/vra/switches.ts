import type { RecordedRequest } from '../sim-server.ts';

/** Which requests a switch applies to: an exact decoded path (or a pattern), and optionally a method. */
export interface RequestMatch {
  path: string | RegExp;
  method?: string;
}

/** A forced answer: a status and a body (a vRA error body unless given). */
export interface ForcedAnswer {
  status: number;
  body?: unknown;
  /** A vRA error entry to answer with (ignored when `body` is given). */
  error?: { code: number; message: string; systemMessage?: string | null };
}

interface Rule<T> {
  match: RequestMatch | undefined;
  remaining: number;
  value: T;
}

export function matches(match: RequestMatch | undefined, request: RecordedRequest): boolean {
  if (match === undefined) return true;
  if (match.method !== undefined && match.method.toUpperCase() !== request.method) return false;
  return typeof match.path === 'string'
    ? match.path === request.path
    : match.path.test(request.path);
}

/** Test switches: delays, forced answers for the next N requests, malformed JSON for the next N. */
export class Switches {
  #delays: Array<Rule<number>> = [];
  #forced: Array<Rule<ForcedAnswer>> = [];
  #malformed: Array<Rule<true>> = [];

  /** Delays every matching request (every request without `match`) by `ms`; 0 removes the delays. */
  setDelay(ms: number, match?: RequestMatch): void {
    if (ms <= 0) {
      this.#delays = [];
      return;
    }
    this.#delays.push({ match, remaining: Number.POSITIVE_INFINITY, value: ms });
  }

  forceNext(match: RequestMatch, answer: ForcedAnswer, times: number): void {
    this.#forced.push({ match, remaining: times, value: answer });
  }

  malformNext(match: RequestMatch, times: number): void {
    this.#malformed.push({ match, remaining: times, value: true });
  }

  reset(): void {
    this.#delays = [];
    this.#forced = [];
    this.#malformed = [];
  }

  delayFor(request: RecordedRequest): number {
    return this.#delays
      .filter((rule) => matches(rule.match, request))
      .reduce((total, rule) => total + rule.value, 0);
  }

  takeForced(request: RecordedRequest): ForcedAnswer | undefined {
    return take(this.#forced, request);
  }

  takeMalformed(request: RecordedRequest): boolean {
    return take(this.#malformed, request) !== undefined;
  }
}

function take<T>(rules: Array<Rule<T>>, request: RecordedRequest): T | undefined {
  const rule = rules.find((r) => r.remaining > 0 && matches(r.match, request));
  if (rule === undefined) return undefined;
  rule.remaining--;
  return rule.value;
}
