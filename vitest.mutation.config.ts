import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

/**
 * The tests of a mutation run (`npm run mutation`, stryker.config.js,
 * TESTING.md): the unit tests of the module mutated, which
 * stryker.config.js puts in MUTATION_TESTS, and no others. Stryker's own
 * `testFiles` would do the same, but with it Stryker 10.1 activates a static
 * mutant (one in module-level code: a constant, a regular expression) only
 * after the module has loaded, so that every such mutant survives whatever
 * the tests (stryker-js issues 6144, 6209).
 */
const named = process.env['MUTATION_TESTS']?.split(',').filter((test) => test !== '') ?? [];
// Loaded without MUTATION_TESTS (an editor, a tool): the unit tests, which
// every module's tests are among.
const tests = named.length > 0 ? named : ['test/unit/**/*.test.ts'];

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: tests,
    reporters: ['default'],
    // A mutant can make a test walk a 26 MB upload byte by byte (audit-event.ts):
    // its worker then runs out of heap and fails, instead of taking the
    // machine's memory, whose exhaustion ended every other process with it.
    execArgv: [...(base.test?.execArgv ?? []), '--max-old-space-size=1024'],
  },
});
