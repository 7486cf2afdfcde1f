import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url);

/** The project's own configuration files at its root (`*.config.js`, `*.config.ts`). */
const configFiles = readdirSync(root).filter((name) => /\.config\.(js|ts)$/.test(name));

/** The environment of a shell that set none of the project's variables. */
function plainEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) =>
        !name.startsWith('MUTATION_') && !name.startsWith('VITEST') && name !== 'NODE_ENV',
    ),
  );
}

describe('the configuration files', () => {
  it('are the ones this test knows to load', () => {
    expect(configFiles).toEqual(
      expect.arrayContaining([
        'eslint.config.js',
        'stryker.config.js',
        'vitest.config.ts',
        'vitest.mutation.config.ts',
      ]),
    );
  });

  it.each(configFiles)(
    '%s loads without any special variable and exports a configuration',
    async (file) => {
      const { stdout } = await run(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const m = await import(${JSON.stringify(new URL(file, root).href)}); console.log(typeof m.default);`,
        ],
        { cwd: root, env: plainEnvironment(), timeout: 15_000 },
      );
      expect(stdout.trim()).toBe('object');
    },
  );

  it('stryker.config.js still refuses a module it does not know', async () => {
    const attempt = run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `await import(${JSON.stringify(new URL('stryker.config.js', root).href)});`,
      ],
      {
        cwd: root,
        env: { ...plainEnvironment(), MUTATION_MODULE: 'no-such-module' },
        timeout: 15_000,
      },
    );
    await expect(attempt).rejects.toMatchObject({
      stderr: expect.stringContaining('MUTATION_MODULE must be one of'),
    });
  });
});
