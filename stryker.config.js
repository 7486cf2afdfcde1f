// Mutation testing of the critical modules (issue 27 item 7; TESTING.md).
// `npm run mutation` runs every module below, one Stryker run each;
// `MUTATION_MODULES="path redact" npm run mutation` runs some of them; with
// no MUTATION_MODULE the configuration is every module in one run.
// Each module is mutated against its own unit tests only, which
// vitest.mutation.config.ts reads from MUTATION_TESTS, set here. Not part of
// `npm test` nor CI. (A .js, not a .mjs: `eslint .` type-checks *.js only.)

/** @type {Record<string, { mutate: string[]; tests: string[] }>} */
const modules = {
  path: {
    mutate: ['src/http/path.ts'],
    tests: ['test/unit/http-path.test.ts'],
  },
  redact: {
    mutate: ['src/http/redact.ts'],
    tests: ['test/unit/http-redact.test.ts'],
  },
  'body-charset': {
    mutate: ['src/http/body-charset.ts'],
    tests: ['test/unit/http-body-charset.test.ts'],
  },
  'concurrency-limiter': {
    mutate: ['src/http/concurrency-limiter.ts'],
    tests: ['test/unit/http-concurrency-limiter.test.ts', 'test/unit/http-adaptive-limit.test.ts'],
  },
  'adaptive-limit': {
    mutate: ['src/http/adaptive-limit.ts'],
    tests: ['test/unit/http-adaptive-limit.test.ts'],
  },
  'json-bounds': {
    mutate: ['src/json-bounds.ts'],
    tests: ['test/unit/json-bounds.test.ts', 'test/unit/json-scalar.test.ts'],
  },
  'keyed-lock': {
    mutate: ['src/upstreams/nsx/keyed-lock.ts'],
    tests: ['test/unit/nsx-keyed-lock.test.ts'],
  },
  network: {
    mutate: ['src/inputs/network.ts'],
    tests: ['test/unit/inputs-network.test.ts'],
  },
  tokens: {
    mutate: ['src/upstreams/vra/tokens.ts'],
    tests: ['test/unit/vra-tokens.test.ts'],
  },
  connection: {
    mutate: ['src/resolvers/connection.ts'],
    tests: ['test/unit/connection.test.ts'],
  },
  // The parser against its fast tests. nsx-xml-lazy (a large document built
  // in slices, 2 s) and nsx-xml-json (of xml-json.ts) reach it too, and made
  // its run take hours on 2 cores; nsx-xml-index parses while its tests are
  // collected, which makes every mutant it reaches a static one, run with
  // every test. The first two run with xml-slices, the last with it too.
  xml: {
    mutate: ['src/upstreams/nsx/xml/xml.ts'],
    tests: [
      'test/unit/nsx-xml.test.ts',
      'test/unit/nsx-xml-bytes.test.ts',
      'test/unit/nsx-xml-conformance.test.ts',
      'test/unit/nsx-xml-parts.test.ts',
    ],
  },
  'xml-slices': {
    mutate: ['src/upstreams/nsx/xml/xml-slices.ts', 'src/upstreams/nsx/xml/xml-splice.ts'],
    tests: [
      'test/unit/nsx-xml-slices.test.ts',
      'test/unit/nsx-xml-index.test.ts',
      'test/unit/nsx-xml-lazy.test.ts',
    ],
  },
  auth: {
    mutate: ['src/auth/*.ts'],
    tests: ['test/unit/auth-*.test.ts', 'test/unit/session-store.test.ts'],
  },
  audit: {
    mutate: ['src/audit/*.ts'],
    tests: ['test/unit/audit-*.test.ts'],
  },
};

// Without MUTATION_MODULE (a tool that only loads the configuration, or
// `npx stryker run` by hand): every module above in one run, named `all`.
const name = process.env.MUTATION_MODULE ?? 'all';
const chosen =
  name === 'all'
    ? {
        mutate: Object.values(modules).flatMap((module) => module.mutate),
        tests: [...new Set(Object.values(modules).flatMap((module) => module.tests))],
      }
    : modules[name];
if (chosen === undefined) {
  throw new Error(
    `MUTATION_MODULE must be one of: ${Object.keys(modules).join(' ')} (or unset: all)`,
  );
}
// read by vitest.mutation.config.ts in Stryker's test runner processes, which inherit it
process.env.MUTATION_TESTS = chosen.tests.join(',');

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  // forks, as vitest.config.ts: its workers take --expose-gc, which threads refuse
  vitest: { configFile: 'vitest.mutation.config.ts', related: false, pool: 'forks' },
  mutate: chosen.mutate,
  coverageAnalysis: 'perTest',
  // a later run tests again only the mutants whose code or tests changed
  incremental: true,
  incrementalFile: `reports/mutation/${name}.incremental.json`,
  // a 2-core machine that others run tests on too
  concurrency: 2,
  timeoutMS: 3_000,
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  // what a sandbox needs: the sources, the unit tests, the configs
  ignorePatterns: [
    '/test-results',
    '/coverage',
    '/reports',
    '/docs',
    '/deploy',
    '/test/browser',
    '/test/bench',
    '/test/integration',
  ],
  reporters: ['clear-text', 'progress-append-only', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${name}.html` },
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  thresholds: { high: 90, low: 85, break: null },
};
