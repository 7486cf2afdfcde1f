import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { getOperationAST, Kind, parse, type FieldNode } from 'graphql';
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

/** The root fields the given files of schema/ add to (or define on) Query, Mutation and Subscription. */
export function rootFieldsOfSchemas(...files: string[]): Set<string> {
  const names = new Set<string>();
  for (const file of files) {
    const schema = parse(readFileSync(new URL(`../../schema/${file}`, import.meta.url), 'utf8'));
    for (const definition of schema.definitions) {
      if (
        (definition.kind === Kind.OBJECT_TYPE_EXTENSION ||
          definition.kind === Kind.OBJECT_TYPE_DEFINITION) &&
        ['Query', 'Mutation', 'Subscription'].includes(definition.name.value)
      ) {
        for (const field of definition.fields ?? []) names.add(field.name.value);
      }
    }
  }
  return names;
}

/** The root fields an example's operation selects. */
function rootSelections(document: string): FieldNode[] {
  return parse(document).definitions.flatMap((definition) =>
    definition.kind === Kind.OPERATION_DEFINITION
      ? definition.selectionSet.selections.filter((s) => s.kind === Kind.FIELD)
      : [],
  );
}

/** The schema fields at the root of an example's operation. */
export function rootFieldNames(document: string): string[] {
  return rootSelections(document).map((field) => field.name.value);
}

/** Where the answers of those fields go in `data`: each one's alias, or its name. */
export function rootResponseKeys(document: string): string[] {
  return rootSelections(document).map((field) => field.alias?.value ?? field.name.value);
}
