import { defineConfig } from 'vitest/config';

export default defineConfig({
  // graphql 16 has no "exports": Node loads its CJS build for graphql-yoga, while
  // Vite would hand src/ the .mjs build, a second GraphQLError class that yoga
  // then masks. One build for both, as under plain Node.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/tools/summary-reporter.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // as `npm start` runs the gateway (src/http/young-collection.ts)
    execArgv: ['--expose-gc'],
  },
});
