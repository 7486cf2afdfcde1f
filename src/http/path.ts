import { BadUserInputError } from '../errors.ts';

/** encodeURIComponent, but a string with an unpaired surrogate (which has no UTF-8 form) is bad input, not a URIError. */
function encode(value: string): string {
  if (!value.isWellFormed()) {
    throw new BadUserInputError('A value holds an unpaired surrogate: it cannot be sent in a URL.');
  }
  return encodeURIComponent(value);
}

/**
 * Builds an upstream path from a template: every interpolated value is
 * percent-encoded as one path segment, so an id can never add a segment,
 * a query or a fragment.  `path\`/workflows/${id}/executions/\``
 */
export function path(strings: TemplateStringsArray, ...values: readonly string[]): string {
  return strings.reduce(
    (built, literal, i) => built + literal + (i < values.length ? encode(values[i] ?? '') : ''),
    '',
  );
}

export type QueryValue = string | number | boolean | undefined;

/** A query string with every name and value percent-encoded (a space is %20, never +). */
export function queryString(query: Readonly<Record<string, QueryValue>> | undefined): string {
  if (query === undefined) return '';
  const parts = Object.entries(query)
    .filter((entry): entry is [string, string | number | boolean] => entry[1] !== undefined)
    .map(([name, value]) => `${encode(name)}=${encode(String(value))}`);
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}
