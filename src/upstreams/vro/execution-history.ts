import type { ExecutionHistoryPage, ExecutionRecord } from './wire.ts';

/** One read of `GET /workflows/{id}/executions/?maxResult=&startIndex=`. */
export type HistoryRead = (query: {
  maxResult: number;
  startIndex: number;
}) => Promise<ExecutionHistoryPage>;

/**
 * A newest-first page of a workflow's runs: `limit` runs after the `offset`
 * newest. vRO lists runs oldest first, and whether this route honours
 * `maxResult`/`startIndex` is unconfirmed (docs/upstreams.md, vRO), so the first
 * read asks for one run: a server that ignores paging answers every run at
 * once (the page is cut here, one call); one that honours it answers one run
 * and the total, and a second read fetches exactly the page's window.
 */
export async function newestFirst(
  read: HistoryRead,
  offset: number,
  limit: number,
): Promise<ExecutionHistoryPage> {
  const probe = await read({ maxResult: 1, startIndex: 0 });
  if (probe.executions.length >= probe.total) {
    return {
      total: probe.total,
      executions: byNewest(probe.executions).slice(offset, offset + limit),
    };
  }
  const total = probe.total;
  const end = Math.max(0, total - offset);
  const start = Math.max(0, end - limit);
  if (end === 0) return { total, executions: [] };
  const window = await read({ maxResult: end - start, startIndex: start });
  if (window.executions.length >= window.total) {
    // it ignored paging after all: every run came
    return {
      total: window.total,
      executions: byNewest(window.executions).slice(offset, offset + limit),
    };
  }
  return {
    total: Math.max(total, window.total),
    executions: byNewest(window.executions).slice(0, limit),
  };
}

/** Newest first by start date; runs without one, and ties, in reverse server order. */
function byNewest(executions: readonly ExecutionRecord[]): ExecutionRecord[] {
  const started = (execution: ExecutionRecord): number =>
    execution.startDate === null ? -Infinity : Date.parse(execution.startDate);
  return executions.toReversed().sort((a, b) => started(b) - started(a));
}
