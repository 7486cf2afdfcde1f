/**
 * The small checks every domain's inputs are made of. Each answers the value
 * when it is good and otherwise throws BAD_USER_INPUT whose message starts
 * with the argument's path (`input.name`, `rules[2].id`) and whose
 * `extensions.argument` is that path; nothing has been sent upstream then.
 */
import { BadUserInputError } from '../errors.ts';

/** Refuses the argument: `message` is a whole sentence about it. */
export function refuse(argument: string, message: string): never {
  throw new BadUserInputError(message, argument);
}

/** The value when the pattern matches it, else `<argument> <expected>.` */
export function checkPattern(
  value: string,
  pattern: RegExp,
  argument: string,
  expected: string,
): string {
  if (!pattern.test(value)) refuse(argument, `${argument} ${expected}.`);
  return value;
}

/** A string with more than white space in it. */
export function checkNotBlank(value: string, argument: string): string {
  if (value.trim() === '') refuse(argument, `${argument} must not be empty.`);
  return value;
}

/** A string of at most `longest` characters. */
export function checkLength(value: string, longest: number, argument: string): string {
  if (value.length > longest) refuse(argument, `${argument} is longer than ${longest} characters.`);
  return value;
}

/** One of the allowed words, as written. */
export function checkOneOf<T extends string>(
  value: string,
  allowed: readonly T[],
  argument: string,
): T {
  if (!(allowed as readonly string[]).includes(value)) {
    refuse(
      argument,
      `${argument} must be one of ${allowed.join(', ')}; got ${JSON.stringify(value)}.`,
    );
  }
  return value as T;
}

/** A whole number of at least `least` (GraphQL has made it an Int already). */
export function checkAtLeast(value: number, least: number, argument: string): number {
  if (value < least) refuse(argument, `${argument} must be ${least} or more.`);
  return value;
}

/** `check` of a value that was given; null and undefined pass as they are. */
export function optional<T, R>(
  value: T | null | undefined,
  check: (given: T) => R,
): R | null | undefined {
  if (value === null || value === undefined) return value as null | undefined;
  return check(value);
}

/**
 * Runs every check and refuses them together: one BAD_USER_INPUT saying
 * `Invalid input: <each problem>.`, its argument the first one's. For forms,
 * where a user wants to see every mistake at once.
 */
export function checkAll(checks: ReadonlyArray<() => unknown>): void {
  const problems: BadUserInputError[] = [];
  for (const check of checks) {
    try {
      check();
    } catch (error) {
      if (!(error instanceof BadUserInputError)) throw error;
      problems.push(error);
    }
  }
  const [first] = problems;
  if (first === undefined) return;
  const said = problems.map((problem) => problem.message.replace(/\.$/, '')).join('; ');
  throw new BadUserInputError(`Invalid input: ${said}.`, argumentOf(first));
}

function argumentOf(error: BadUserInputError): string | undefined {
  const argument = error.extensions['argument'];
  return typeof argument === 'string' ? argument : undefined;
}
