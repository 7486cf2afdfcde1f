import {
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  getNullableType,
  getOperationAST,
  getVariableValues,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  isAbstractType,
  isListType,
  isObjectType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
  type SelectionNode,
  type SelectionSetNode,
} from 'graphql';
import { assumedListSize, defaultCost, upstreamCosts, type FieldCost } from './upstream-costs.ts';

/** The cost of `Type.field`, or undefined when it reaches no upstream. */
export type CostOf = (typeName: string, fieldName: string) => FieldCost | undefined;

type ResolverMap = Readonly<Record<string, unknown>>;

/** True when the resolver declares the context parameter: it may call an upstream. */
export function takesContext(resolver: unknown): boolean {
  if (typeof resolver === 'function') return resolver.length >= 3;
  if (typeof resolver === 'object' && resolver !== null) {
    const { subscribe, resolve } = resolver as { subscribe?: unknown; resolve?: unknown };
    return takesContext(subscribe) || takesContext(resolve);
  }
  return false;
}

/**
 * The table's row of a field; without one, `defaultCost` for the fields that
 * may reach an upstream (root fields, resolvers that take the context).
 */
export function costOfFields(
  schema: GraphQLSchema,
  resolvers: ResolverMap,
  table: Readonly<Record<string, FieldCost>> = upstreamCosts,
): CostOf {
  const roots = new Set(
    [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].map(
      (type) => type?.name,
    ),
  );
  return (typeName, fieldName) => {
    const row = table[`${typeName}.${fieldName}`];
    if (row !== undefined) return row;
    const ofType = resolvers[typeName] as ResolverMap | undefined;
    return roots.has(typeName) || takesContext(ofType?.[fieldName]) ? defaultCost : undefined;
  };
}

export interface OperationRequest {
  operationName?: string | null | undefined;
  variables?: Readonly<Record<string, unknown>> | null | undefined;
}

/**
 * Upstream calls an operation of a validated document can make, with its
 * variables applied: each field's calls (upstream-costs.ts) times the items
 * of the lists above it (a field's `first`, else the list's assumed size; the
 * lists of a connection are its `first`), fields of one loader selected on one
 * object once, operation-wide batched fields once. Undefined when the request
 * cannot run anyway (no such operation, variables that do not fit).
 */
export function estimateUpstreamCalls(
  schema: GraphQLSchema,
  document: DocumentNode,
  request: OperationRequest,
  costOf: CostOf,
): number | undefined {
  const operation = getOperationAST(document, request.operationName ?? undefined);
  if (operation === null || operation === undefined) return undefined;
  const root = schema.getRootType(operation.operation);
  if (root === undefined || root === null) return undefined;
  const definitions = operation.variableDefinitions ?? [];
  let variables: Record<string, unknown> = {};
  if (definitions.length > 0) {
    const coerced = getVariableValues(schema, definitions, request.variables ?? {});
    if (coerced.errors !== undefined) return undefined;
    variables = coerced.coerced;
  }
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) {
      fragments.set(definition.name.value, definition);
    }
  }
  const walk = new CostWalk(schema, fragments, variables, costOf);
  return walk.selections(root, [operation.selectionSet], 1, undefined);
}

class CostWalk {
  readonly #schema: GraphQLSchema;
  readonly #fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  readonly #variables: Record<string, unknown>;
  readonly #costOf: CostOf;
  /** Operation-wide batched calls already counted. */
  readonly #counted = new Set<string>();

  constructor(
    schema: GraphQLSchema,
    fragments: ReadonlyMap<string, FragmentDefinitionNode>,
    variables: Record<string, unknown>,
    costOf: CostOf,
  ) {
    this.#schema = schema;
    this.#fragments = fragments;
    this.#variables = variables;
    this.#costOf = costOf;
  }

  /**
   * Calls of the selections on one object of `type`, times `items` objects;
   * `source` is the nearest field above that read the object from an upstream.
   */
  selections(
    type: GraphQLObjectType,
    sets: readonly SelectionSetNode[],
    items: number,
    source: string | undefined,
  ): number {
    const sharedHere = new Set<string>();
    let total = 0;
    for (const nodes of this.#collect(type, sets, new Map(), new Set()).values()) {
      const [node] = nodes;
      const definition = node === undefined ? undefined : type.getFields()[node.name.value];
      if (node === undefined || definition === undefined) continue;
      const coordinate = `${type.name}.${definition.name}`;
      const cost = this.#costOf(type.name, definition.name);
      const reads = cost !== undefined && cost.calls > 0;
      if (reads && (source === undefined || cost.carriedBy?.includes(source) !== true)) {
        total += this.#own(cost, coordinate, items, sharedHere);
      }
      const below = nodes.flatMap((n) => (n.selectionSet === undefined ? [] : [n.selectionSet]));
      if (below.length === 0) continue;
      const inner = items * this.#itemsOf(type, definition, node, cost);
      const from = reads ? coordinate : source;
      let most = 0;
      for (const possible of this.#objectTypes(definition)) {
        most = Math.max(most, this.selections(possible, below, inner, from));
      }
      total += most;
    }
    return total;
  }

  #own(cost: FieldCost, coordinate: string, items: number, sharedHere: Set<string>): number {
    if (cost.per === 'operation') {
      const key = cost.shares ?? coordinate;
      if (this.#counted.has(key)) return 0;
      this.#counted.add(key);
      return cost.calls;
    }
    if (cost.shares !== undefined) {
      if (sharedHere.has(cost.shares)) return 0;
      sharedHere.add(cost.shares);
    }
    return cost.calls * items;
  }

  /** How many objects the field answers per parent object, for the fields below it. */
  #itemsOf(
    parent: GraphQLObjectType,
    definition: GraphQLField<unknown, unknown>,
    node: FieldNode,
    cost: FieldCost | undefined,
  ): number {
    if (definition.args.some((argument) => argument.name === 'first')) {
      let first: unknown;
      try {
        first = getArgumentValues(definition, node, this.#variables)['first'];
      } catch {
        first = undefined;
      }
      return typeof first === 'number' ? Math.max(0, first) : assumedListSize;
    }
    if (!isListType(getNullableType(definition.type))) return 1;
    // The nodes and edges of a Relay connection: the page its field's `first` counted.
    if (parent.name.endsWith('Connection')) return 1;
    return cost?.items ?? assumedListSize;
  }

  #objectTypes(definition: GraphQLField<unknown, unknown>): readonly GraphQLObjectType[] {
    const named = getNamedType(definition.type);
    if (isObjectType(named)) return [named];
    if (isAbstractType(named)) return this.#schema.getPossibleTypes(named);
    return [];
  }

  /** The fields selected on an object of `type`, by response key (fragments followed once). */
  #collect(
    type: GraphQLObjectType,
    sets: readonly SelectionSetNode[],
    into: Map<string, FieldNode[]>,
    spread: Set<string>,
  ): Map<string, FieldNode[]> {
    for (const set of sets) {
      for (const selection of set.selections) {
        if (!this.#included(selection)) continue;
        if (selection.kind === Kind.FIELD) {
          if (selection.name.value.startsWith('__')) continue;
          const key = selection.alias?.value ?? selection.name.value;
          const same = into.get(key);
          if (same === undefined) into.set(key, [selection]);
          else same.push(selection);
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          if (this.#applies(selection.typeCondition?.name.value, type)) {
            this.#collect(type, [selection.selectionSet], into, spread);
          }
        } else {
          const name = selection.name.value;
          const fragment = this.#fragments.get(name);
          if (fragment === undefined || spread.has(name)) continue;
          spread.add(name);
          if (this.#applies(fragment.typeCondition.name.value, type)) {
            this.#collect(type, [fragment.selectionSet], into, spread);
          }
        }
      }
    }
    return into;
  }

  #applies(condition: string | undefined, type: GraphQLObjectType): boolean {
    if (condition === undefined || condition === type.name) return true;
    const conditionType = this.#schema.getType(condition);
    return (
      conditionType !== undefined &&
      isAbstractType(conditionType) &&
      this.#schema.isSubType(conditionType, type)
    );
  }

  #included(selection: SelectionNode): boolean {
    if (selection.directives === undefined || selection.directives.length === 0) return true;
    const skip = getDirectiveValues(GraphQLSkipDirective, selection, this.#variables);
    if (skip?.['if'] === true) return false;
    const include = getDirectiveValues(GraphQLIncludeDirective, selection, this.#variables);
    return include?.['if'] !== false;
  }
}
