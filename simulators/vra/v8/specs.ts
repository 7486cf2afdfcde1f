/**
 * The vRA 8 specification subsets (`specs/`, see SOURCES.md there),
 * one validator per file, and which file and path template serve a request.
 */
import { readFileSync } from 'node:fs';
import {
  matchPathTemplate,
  SpecValidator,
  type SpecValidation,
  type SwaggerDocument,
} from '../../spec-validator.ts';

export const vra8SpecFiles = [
  'vra-iaas.json',
  'vra-catalog-deployment.json',
  'vra-blueprint.json',
] as const;

export function readVra8Spec(file: (typeof vra8SpecFiles)[number]): SwaggerDocument {
  return JSON.parse(
    readFileSync(new URL(`./specs/${file}`, import.meta.url), 'utf8'),
  ) as SwaggerDocument;
}

/** One operation of the specification a request path matched. */
export interface SpecOperation {
  validator: SpecValidator;
  /** The path template (`/catalog/api/items/{id}`). */
  template: string;
  /** Its methods, upper case. */
  methods: string[];
}

export class Vra8Specs {
  readonly #validators: SpecValidator[];
  readonly #templates: Array<{ template: string; validator: SpecValidator }> = [];
  /** The error body every service answers (the only error definition of the three files). */
  readonly errorValidator: SpecValidator;

  constructor() {
    this.#validators = vra8SpecFiles.map(
      (file) =>
        new SpecValidator(readVra8Spec(file), {
          // Answers carry only what the specification names.
          closedAnswers: true,
          // Required in the definitions, but assigned by the server: a create
          // names none (the same bodies are the answers, where the ids are set).
          requestOptional: { CatalogSource: ['id'], Entitlement: ['id'] },
        }),
    );
    for (const validator of this.#validators)
      for (const { path } of validator.operations())
        if (!this.#templates.some((known) => known.template === path))
          this.#templates.push({ template: path, validator });
    const iaas = this.#validators[0];
    if (iaas === undefined) throw new Error('no IaaS specification');
    this.errorValidator = iaas;
  }

  /** The operation a concrete path belongs to, whatever the method, or undefined. */
  find(path: string): SpecOperation | undefined {
    const template = matchPathTemplate(
      this.#templates.map((known) => known.template),
      path,
    );
    const found = this.#templates.find((known) => known.template === template);
    if (found === undefined || template === undefined) return undefined;
    return {
      validator: found.validator,
      template,
      methods: found.validator
        .operations()
        .filter((operation) => operation.path === template)
        .map((operation) => operation.method),
    };
  }

  validateError(body: unknown): SpecValidation {
    return this.errorValidator.validateDefinition('ServiceErrorResponse', body);
  }
}
