import { BadUserInputError } from '../../src/errors.ts';

/** The error of class `type` that `run` throws; any other error is rethrown, none fails the test. */
export function thrown<E extends Error>(
  type: abstract new (...args: never[]) => E,
  run: () => unknown,
): E {
  try {
    run();
  } catch (error) {
    if (error instanceof type) return error;
    throw error;
  }
  throw new Error(`accepted: no ${type.name} was thrown`);
}

/** The BAD_USER_INPUT that `run` throws. */
export function badInput(run: () => unknown): BadUserInputError {
  return thrown(BadUserInputError, run);
}

/** The `extensions.argument` of the BAD_USER_INPUT that `run` throws. */
export function refusedArgument(run: () => unknown): unknown {
  return badInput(run).extensions['argument'];
}
