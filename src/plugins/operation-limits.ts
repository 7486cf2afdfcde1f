import {
  GraphQLError,
  Kind,
  parse,
  type ASTVisitor,
  type FragmentDefinitionNode,
  type ParseOptions,
  type Source,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Limits } from '../config.ts';

const refuse = (message: string): GraphQLError =>
  new GraphQLError(message, { extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });

const introspectionRoots = new Set(['__schema', '__type']);
/** GraphiQL's full introspection query nests 14 deep; its shape is fixed by the schema. */
const introspectionDepth = 16;

/**
 * Refuses a selection nested deeper than `max` fields (fragments followed,
 * cycles cut); introspection gets the depth GraphiQL needs.
 */
export function maxDepthRule(max: number): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of context.getDocument().definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION)
        fragments.set(definition.name.value, definition);
    }
    const depthOf = (set: SelectionSetNode, seen: ReadonlySet<string>): number => {
      let deepest = 0;
      for (const selection of set.selections) {
        if (selection.kind === Kind.FIELD) {
          const below =
            selection.selectionSet === undefined ? 0 : depthOf(selection.selectionSet, seen);
          deepest = Math.max(deepest, (selection.name.value.startsWith('__') ? 0 : 1) + below);
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          deepest = Math.max(deepest, depthOf(selection.selectionSet, seen));
        } else {
          const name = selection.name.value;
          const fragment = fragments.get(name);
          if (fragment !== undefined && !seen.has(name)) {
            deepest = Math.max(deepest, depthOf(fragment.selectionSet, new Set([...seen, name])));
          }
        }
        if (deepest > max) return deepest;
      }
      return deepest;
    };
    return {
      OperationDefinition(operation) {
        for (const selection of operation.selectionSet.selections) {
          const introspection =
            selection.kind === Kind.FIELD && introspectionRoots.has(selection.name.value);
          const limit = introspection ? Math.max(max, introspectionDepth) : max;
          const depth = depthOf({ kind: Kind.SELECTION_SET, selections: [selection] }, new Set());
          if (depth > limit) {
            context.reportError(
              refuse(`The operation is nested deeper than ${limit} fields (MAX_QUERY_DEPTH).`),
            );
            return;
          }
        }
      },
    };
  };
}

/** Refuses a document with more than `max` aliases. */
export function maxAliasesRule(max: number): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    let aliases = 0;
    return {
      Field(field) {
        if (field.alias !== undefined) aliases += 1;
      },
      Document: {
        leave() {
          if (aliases > max) {
            context.reportError(
              refuse(
                `The document has ${aliases} aliases; at most ${max} are allowed (MAX_ALIASES).`,
              ),
            );
          }
        },
      },
    };
  };
}

/** Depth and alias limits as validation rules, and the token limit enforced by the parser itself. */
export function operationLimits(limits: Limits): Plugin {
  const rules = [maxDepthRule(limits.maxDepth), maxAliasesRule(limits.maxAliases)];
  return {
    onParse({ setParseFn }) {
      setParseFn((source: string | Source, options?: ParseOptions) => {
        try {
          return parse(source, { ...options, maxTokens: limits.maxTokens });
        } catch (error) {
          // graphql 16 says "Document contains more that N tokens" (sic).
          if (
            error instanceof GraphQLError &&
            /contains more th(?:an|at) \d+ tokens/.test(error.message)
          ) {
            throw new GraphQLError(
              `The document has more than ${limits.maxTokens} tokens (MAX_TOKENS).`,
              {
                extensions: { code: 'GRAPHQL_PARSE_FAILED' },
              },
            );
          }
          throw error;
        }
      });
    },
    onValidate({ addValidationRule }) {
      for (const rule of rules) addValidationRule(rule);
    },
  };
}
