// Mutation testing of the critical modules (issue 27 item 7; TESTING.md).
// `npm run mutation` runs every module; MUTATION_MODULES=path,redact runs some.
// Each module is mutated against its own unit tests only (`testFiles`), and
// each mutant runs only the tests that reach it (`coverageAnalysis: perTest`).
// Not part of `npm test` nor CI: a full run takes the better part of an hour.

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
  xml: {
    mutate: [
      'src/upstreams/nsx/xml.ts',
      'src/upstreams/nsx/xml-slices.ts',
      'src/upstreams/nsx/xml-splice.ts',
    ],
    tests: [
      'test/unit/nsx-xml.test.ts',
      'test/unit/nsx-xml-bytes.test.ts',
      'test/unit/nsx-xml-index.test.ts',
      'test/unit/nsx-xml-lazy.test.ts',
      'test/unit/nsx-xml-slices.test.ts',
      'test/unit/nsx-xml-conformance.test.ts',
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

const names = process.env.MUTATION_MODULES?.split(',').filter((name) => name !== '') ?? [];
for (const name of names) {
  if (modules[name] === undefined) {
    throw new Error(`MUTATION_MODULES: no module "${name}" (${Object.keys(modules).join(', ')})`);
  }
}
const selected = names.length > 0 ? names : Object.keys(modules);

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  // forks, as vitest.config.ts: its workers take --expose-gc, which threads refuse
  vitest: { configFile: 'vitest.config.ts', related: false, pool: 'forks' },
  mutate: selected.flatMap((name) => modules[name].mutate),
  testFiles: [...new Set(selected.flatMap((name) => modules[name].tests))],
  coverageAnalysis: 'perTest',
  // a 2-core machine that others run tests on too
  concurrency: 2,
  timeoutMS: 10_000,
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  // what a sandbox needs: the sources, the tests, the configs
  ignorePatterns: [
    '/test-results',
    '/coverage',
    '/reports',
    '/docs',
    '/deploy',
    '/examples',
    '/test/browser',
    '/test/bench',
    '/test/integration',
  ],
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  thresholds: { high: 90, low: 85, break: null },
};
