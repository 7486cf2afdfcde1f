import type { IncomingHttpHeaders } from 'node:http';

/** One request as a simulator received it, for tests to assert on (and for its fault plan to match). */
export interface RecordedRequest {
  method: string;
  /** Path as sent, still percent-encoded, without the query. */
  rawPath: string;
  /** Path with each segment decoded. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** When the request was received (epoch ms), for tests of pauses such as Retry-After. */
  receivedAt: number;
}

/** The segments of a raw path, each decoded (one that does not decode is kept as sent). */
export function pathSegments(rawPath: string): string[] {
  return rawPath
    .split('/')
    .slice(1)
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    });
}
