/**
 * Fails when src/generated/ does not match what GraphQL Code Generator makes
 * from schema/ now (run `npm run codegen` to refresh it).
 */
import { readFileSync } from 'node:fs';
import { generate } from '@graphql-codegen/cli';
import { format, resolveConfig } from 'prettier';
import { parse } from 'yaml';
import type { Types } from '@graphql-codegen/plugin-helpers';

const config = parse(readFileSync('codegen.yml', 'utf8')) as Types.Config;
const outputs = (await generate({ ...config, silent: true }, false)) as Types.FileOutput[];
let stale = 0;
for (const output of outputs) {
  const prettier = await resolveConfig(output.filename);
  const wanted = await format(output.content, { ...prettier, filepath: output.filename });
  let current = '';
  try {
    current = readFileSync(output.filename, 'utf8');
  } catch {
    // missing: stale
  }
  if (current !== wanted) {
    console.error(`codegen-check: ${output.filename} is stale; run \`npm run codegen\``);
    stale++;
  }
}
if (stale > 0) process.exit(1);
console.log(`codegen-check: ${outputs.length} generated file(s) match schema/`);
