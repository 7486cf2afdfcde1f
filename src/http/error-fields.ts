/** What an upstream's error body gives a client: its code and message, nothing else. */
export interface ErrorFields {
  code: string | null;
  message: string | null;
}

export const noErrorFields: Readonly<ErrorFields> = Object.freeze({ code: null, message: null });

/** The longest upstream message an error carries. */
export const longestUpstreamMessage = 500;

/** A JSON error body's top-level object, or undefined (not JSON, or not an object). */
export function jsonErrorObject(body: string): Record<string, unknown> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : undefined;
}

/** An error code as a string: a finite number, or a non-blank string trimmed (and cut to `longest`). */
export function errorCode(value: unknown, longest = Number.POSITIVE_INFINITY): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, longest) : null;
}

/** A non-blank message, trimmed and cut to the longest an error carries. */
export function errorMessage(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== ''
    ? value.trim().slice(0, longestUpstreamMessage)
    : null;
}
