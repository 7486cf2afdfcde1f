/**
 * docs/front-end.md's recipes, run as a front-end developer would: its
 * `codegen.ts` generates typed code from a running gateway and a `nodenext`
 * app type-checks against it; its Node sign-in script signs in and reads
 * with the cookie. The text is read from the page, so the page cannot rot.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, startStack, type Stack } from '../helpers/stack.ts';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const page = readFileSync(join(root, 'docs', 'front-end.md'), 'utf8');

/** The first fenced block of `language` after `marker` in the page. */
function block(marker: string, language: string): string {
  const from = page.indexOf(marker);
  expect(from).toBeGreaterThan(-1);
  const match = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(page.slice(from));
  expect(match).not.toBeNull();
  return match![1]!;
}

let stack: Stack;
let server: Awaited<ReturnType<typeof listen>>;
let dir: string;

beforeAll(async () => {
  stack = await startStack();
  server = await listen(stack.gateway);
  // inside the project, so that its node_modules resolve as an app's own would
  dir = mkdtempSync(join(root, '.front-end-recipe-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await server.close();
  await stack.close();
});

const gatewayUrl = () => new URL('/graphql', server.url).href.replace('127.0.0.1', 'localhost');

describe("docs/front-end.md's recipes", () => {
  it('generates typed code from a running gateway with its codegen.ts, and a nodenext app type-checks', async () => {
    const codegen = block('<!-- recipe: codegen.ts -->', 'ts').replace(
      'http://localhost:4000/graphql',
      gatewayUrl(),
    );
    expect(codegen).toContain(gatewayUrl());
    writeFileSync(join(dir, 'codegen.ts'), codegen);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          verbatimModuleSyntax: true,
        },
        include: ['src'],
      }),
    );
    mkdirSync(join(dir, 'src'));
    writeFileSync(
      join(dir, 'src', 'app.ts'),
      `import { graphql } from './gql/index.js';
import type { ResultOf, VariablesOf } from '@graphql-typed-document-node/core';

export const Items = graphql(\`
  query Items {
    entitledCatalogItems(first: 5) {
      nodes { id name form { fields { name type required choices { value label } } } }
    }
  }
\`);
export const Order = graphql(\`
  mutation Order($input: RequestCatalogItemInput!) {
    requestCatalogItem(input: $input) { request { id state } }
  }
\`);
export const names = (data: ResultOf<typeof Items>): string[] =>
  data.entitledCatalogItems?.nodes.map((node) => node.name) ?? [];
export const order: VariablesOf<typeof Order> = {
  input: { catalogItemId: 'x', values: [{ name: 'hostname', value: 'web01' }] },
};
`,
    );
    const bin = (name: string) => join(root, 'node_modules', '.bin', name);
    await run(bin('graphql-codegen'), ['--config', 'codegen.ts'], { cwd: dir });
    const generated = readFileSync(join(dir, 'src', 'gql', 'graphql.ts'), 'utf8');
    expect(generated).toContain('export type ItemsQuery');
    expect(generated).toContain('export type FormValueInput');
    // a mistake in the app is caught by tsc: the check is real
    const { stdout } = await run(bin('tsc'), ['-p', 'tsconfig.json'], { cwd: dir });
    expect(stdout).toBe('');
    writeFileSync(
      join(dir, 'src', 'wrong.ts'),
      `import type { VariablesOf } from '@graphql-typed-document-node/core';
import type { Order } from './app.js';
export const wrong: VariablesOf<typeof Order> = { input: { values: [{ name: 1 }] } };
`,
    );
    await expect(run(bin('tsc'), ['-p', 'tsconfig.json'], { cwd: dir })).rejects.toMatchObject({
      stdout: expect.stringContaining('wrong.ts'),
    });
  }, 60_000);

  it('signs in from Node with the sign-in script and reads with the cookie it sets', async () => {
    const script = block('**Signing in from Node.**', 'js').replace(
      'http://localhost:4000/graphql',
      gatewayUrl(),
    );
    const file = join(dir, 'sign-in.mjs');
    writeFileSync(file, `${script}\nconsole.log(JSON.stringify(await items.json()));\n`);
    const { stdout } = await run(process.execPath, [file], { cwd: dir });
    const answer = JSON.parse(stdout) as {
      data: { entitledCatalogItems: { nodes: Array<{ name: string }> } };
    };
    // the developer's own entitlements: the restricted item is not among them
    const names = answer.data.entitledCatalogItems.nodes.map((node) => node.name);
    expect(names).toContain('CentOS 7 Machine');
    expect(names).not.toContain('Oracle Database (restricted)');
  }, 30_000);
});
