/** A vRA 7 error body: `{"errors":[{code, source, message, systemMessage, moreInfoUrl}]}`. */
export interface SimErrorEntry {
  code: number;
  source: null;
  message: string;
  systemMessage: string | null;
  moreInfoUrl: null;
}

export function vraErrorBody(
  code: number,
  message: string,
  systemMessage: string | null = message,
): { errors: SimErrorEntry[] } {
  return { errors: [{ code, source: null, message, systemMessage, moreInfoUrl: null }] };
}

/** Codes seen on real vRA 7 (docs/upstreams.md, vRA). */
export const vraCodes = {
  invalidArgument: 10101,
  notFound: 20111,
  catalogItemNotFound: 20116,
  /** Not recorded on a real vRA (a caller without entitlement); 403 with this code stands in. */
  notEntitled: 20117,
  authenticationFailed: 90135,
  systemException: 50505,
} as const;

export function invalidArgument(detail: string): { errors: SimErrorEntry[] } {
  return vraErrorBody(vraCodes.invalidArgument, 'Invalid argument.', detail);
}
