/**
 * `npm run persisted:build [-- <file>]`: writes the allow-list of every
 * operation in examples/ (default examples/persisted-operations.json), the
 * file PERSISTED_OPERATIONS_FILE takes: `{ "<sha256 hex of the document>": "<document>" }`.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { examplesDir, persistedOperationsOf, readExamples } from '../helpers/examples.ts';

const out = process.argv[2] ?? fileURLToPath(new URL('persisted-operations.json', examplesDir));
const operations = persistedOperationsOf(readExamples());
writeFileSync(out, `${JSON.stringify(operations, null, 2)}\n`);
console.log(`${Object.keys(operations).length} operations written to ${resolve(out)}`);
