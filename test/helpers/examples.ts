import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { getOperationAST, parse } from 'graphql';
import { documentHash } from '../../src/plugins/persisted-operations.ts';

export const examplesDir = new URL('../../examples/', import.meta.url);

/** One ready-made operation of examples/: `<name>.graphql` and its `<name>.variables.json`. */
export interface Example {
  name: string;
  /** The file's exact text: what a client sends. */
  document: string;
  operationName: string;
  operationType: 'query' | 'mutation' | 'subscription';
  variables: Record<string, unknown> | undefined;
}

/** Every example, in file name order; each file holds exactly one named operation. */
export function readExamples(): Example[] {
  return readdirSync(examplesDir)
    .filter((file) => file.endsWith('.graphql'))
    .sort()
    .map((file) => {
      const name = file.slice(0, -'.graphql'.length);
      const document = readFileSync(new URL(file, examplesDir), 'utf8');
      const operation = getOperationAST(parse(document));
      if (operation?.name === undefined) {
        throw new Error(`examples/${file} must hold exactly one named operation`);
      }
      const variablesFile = new URL(`${name}.variables.json`, examplesDir);
      return {
        name,
        document,
        operationName: operation.name.value,
        operationType: operation.operation,
        variables: existsSync(variablesFile)
          ? (JSON.parse(readFileSync(variablesFile, 'utf8')) as Record<string, unknown>)
          : undefined,
      };
    });
}

/** The allow-list of the examples: `{ "<sha256 of the document>": "<document>" }`, in example order. */
export function persistedOperationsOf(examples: readonly Example[]): Record<string, string> {
  return Object.fromEntries(examples.map((e) => [documentHash(e.document), e.document]));
}
