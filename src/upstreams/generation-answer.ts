import { UpstreamStatusError } from '../errors.ts';

/**
 * Whether a failed generation question got an answer from the appliance
 * itself. No answer (refused, reset, timed out, an unreadable body) leaves
 * the generation unknown, and so do 429 and any 5xx: a proxy in front of an
 * appliance that is starting (or busy) says nothing about the appliance, and
 * remembering the wrong generation would outlast the boot. Any other status
 * (a 3xx, 401, 403, 404…) is the appliance's answer to a path it lacks or
 * guards: the older generation.
 */
export function isApplianceAnswer(error: unknown): error is UpstreamStatusError {
  return error instanceof UpstreamStatusError && error.status < 500 && error.status !== 429;
}
