import { UpstreamError, UpstreamStatusError } from '../../errors.ts';

/**
 * vRA refused a submitted request as invalid (400, e.g. code 10101 "Invalid
 * argument"): a template field the caller got wrong. The caller's mistake,
 * so BAD_USER_INPUT, with vRA's own code and message in `extensions.upstream`.
 */
export class RefusedRequestError extends UpstreamError {
  readonly code = 'BAD_USER_INPUT';
  constructor(cause: UpstreamStatusError) {
    const said = cause.upstream.message === null ? '' : `: ${cause.upstream.message}`;
    super('BAD_USER_INPUT', `The catalog service (vRA) refused the request${said}`, cause.upstream);
  }
}

/** A 400 of a submit becomes the caller's mistake; anything else stays as it was. */
export function asCallerMistake(error: unknown): unknown {
  return error instanceof UpstreamStatusError && error.status === 400
    ? new RefusedRequestError(error)
    : error;
}
