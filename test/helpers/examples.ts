import { readdirSync, readFileSync } from 'node:fs';
import { getOperationAST, Kind, parse, type FieldNode } from 'graphql';
import { documentHash } from '../../src/plugins/persisted-operations.ts';

export const examplesDir = new URL('../../examples/', import.meta.url);

/**
 * The second generation of an appliance an example's variables may be given
 * for, in `<name>.<generation>.variables.json`: vRA 8, NSX-T. The plain
 * `<name>.variables.json` is the first generation's (vRA 7, NSX-v) and serves
 * the second too when no file of its own is given.
 */
export const secondGenerations = ['vra8', 'nsxt'] as const;
export type SecondGeneration = (typeof secondGenerations)[number];

type Variables = Record<string, unknown>;

/** One ready-made operation of examples/: `<name>.graphql` and its variables files. */
export interface Example {
  name: string;
  /** The file's exact text: what a client sends. */
  document: string;
  operationName: string;
  operationType: 'query' | 'mutation' | 'subscription';
  /** `<name>.variables.json`: vRA 7 and NSX-v, and any generation without a file of its own. */
  variables: Variables | undefined;
  /** `<name>.vra8.variables.json`, `<name>.nsxt.variables.json`, where given. */
  variablesOf?: Partial<Record<SecondGeneration, Variables>>;
}

const variablesSuffix = /^(.+?)(?:\.(\w+))?\.variables\.json$/;

const readJson = (file: string): Variables =>
  JSON.parse(readFileSync(new URL(file, examplesDir), 'utf8')) as Variables;

/** Every example, in file name order; each file holds exactly one named operation. */
export function readExamples(): Example[] {
  const files = readdirSync(examplesDir);
  return files
    .filter((file) => file.endsWith('.graphql'))
    .sort()
    .map((file) => {
      const name = file.slice(0, -'.graphql'.length);
      const document = readFileSync(new URL(file, examplesDir), 'utf8');
      const operation = getOperationAST(parse(document));
      if (operation?.name === undefined) {
        throw new Error(`examples/${file} must hold exactly one named operation`);
      }
      const variablesFile = `${name}.variables.json`;
      const variablesOf: Partial<Record<SecondGeneration, Variables>> = {};
      for (const generation of secondGenerations) {
        const own = `${name}.${generation}.variables.json`;
        if (files.includes(own)) variablesOf[generation] = readJson(own);
      }
      return {
        name,
        document,
        operationName: operation.name.value,
        operationType: operation.operation,
        variables: files.includes(variablesFile) ? readJson(variablesFile) : undefined,
        variablesOf,
      };
    });
}

/** An example's variables on a second generation: its own file, else the plain one. */
export function variablesOn(example: Example, generation: SecondGeneration): Variables | undefined {
  return example.variablesOf?.[generation] ?? example.variables;
}

/**
 * Every variables file of examples/ as `{ file, example, generation }`
 * (`generation` undefined for the plain one), to check that none is stray.
 */
export function variablesFiles(): Array<{
  file: string;
  example: string;
  generation: string | undefined;
}> {
  return readdirSync(examplesDir).flatMap((file) => {
    const match = variablesSuffix.exec(file);
    return match === null ? [] : [{ file, example: match[1]!, generation: match[2] }];
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
