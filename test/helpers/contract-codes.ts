/** Every code the runtime contract allows in `extensions.code` (tests' and bench's own copy of the contract). */
export const contractCodes: ReadonlySet<string> = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'UPSTREAM_TIMEOUT',
  'UPSTREAM_UNAVAILABLE',
  'UPSTREAM_BAD_RESPONSE',
  'UPSTREAM_ERROR',
  'RATE_LIMITED',
  'AUDIT_UNAVAILABLE',
  'NOT_SUPPORTED',
]);
