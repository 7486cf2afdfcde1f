import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import {
  GraphQLError,
  Lexer,
  parse,
  Source,
  TokenKind,
  type DocumentNode,
  type ParseOptions,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Limits } from '../config.ts';
import { expandedSelections } from './expanded-selections.ts';

/** GraphiQL's full introspection query nests 15 deep; its shape is fixed by the schema. */
const introspectionDepth = 16;

type Refusal = {
  onReject: [(context: ValidationContext | null) => void];
  propagateOnRejection: false;
};

/**
 * Options for GraphQL Armor's rules of one limit: they refuse through their
 * `onReject` callback with the contract's code and a message naming the
 * variable (Armor's own errors carry no code), once per document however many
 * of the limit's rules and operations break it.
 */
function refusals(): (message: string) => Refusal {
  const refused = new WeakSet<ValidationContext>();
  return (message) => ({
    onReject: [
      (context) => {
        if (context === null || refused.has(context)) return;
        refused.add(context);
        context.reportError(
          new GraphQLError(message, { extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }),
        );
      },
    ],
    propagateOnRejection: false,
  });
}

/**
 * Refuses a selection nested deeper than `max` fields (fragments followed
 * without adding a level); introspection (`__schema`) gets the depth GraphiQL
 * needs.
 */
export function depthRules(max: number): ValidationRule[] {
  const message = (limit: number) =>
    `The operation is nested deeper than ${limit} fields (MAX_QUERY_DEPTH).`;
  const introspectionLimit = Math.max(max, introspectionDepth);
  const refuseOnce = refusals();
  return [
    maxDepthRule({
      n: max,
      flattenFragments: true,
      ignoreIntrospection: true,
      ...refuseOnce(message(max)),
    }),
    maxDepthRule({
      n: introspectionLimit,
      flattenFragments: true,
      ignoreIntrospection: false,
      ...refuseOnce(message(introspectionLimit)),
    }),
  ];
}

/** Refuses an operation with more than `max` aliases (`__typename` included, fragments counted where spread). */
export function aliasesRule(max: number): ValidationRule {
  return maxAliasesRule({
    n: max,
    allowList: [],
    ...refusals()(`The operation has more than ${max} aliases (MAX_ALIASES).`),
  });
}

/** Whether `source` has more than `max` tokens, counted as graphql-js's parser counts them (all but the end). */
function moreTokensThan(source: string | Source, max: number): boolean {
  const lexer = new Lexer(typeof source === 'string' ? new Source(source) : source);
  try {
    for (let count = 1; lexer.advance().kind !== TokenKind.EOF; count += 1) {
      if (count > max) return true;
    }
  } catch {
    // a lexical error before the limit: the parser's own error stands
  }
  return false;
}

/**
 * The refusal of a document whose largest operation or fragment expands to
 * more than `max` field selections, or undefined. Counted before any other
 * rule, compiler or executor walks the document: they pay for what it
 * expands to, not for what it spells.
 */
export function expansionRefusal(document: DocumentNode, max: number): GraphQLError | undefined {
  const expanded = expandedSelections(document);
  if (expanded <= max) return undefined;
  const size = expanded > 1e9 ? 'more than a billion' : String(expanded);
  return new GraphQLError(
    `The operation expands to ${size} field selections once its fragment spreads are followed; at most ${max} are allowed (MAX_EXPANDED_SELECTIONS). Spread each fragment fewer times.`,
    { extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } },
  );
}

/**
 * Depth and alias limits as validation rules, the expansion limit checked
 * before them (a document over it is not validated further), and the token
 * limit enforced by graphql-js's parser itself (its error carries no code: a
 * document that fails to parse and is over the limit is refused for its size).
 */
export function operationLimits(limits: Limits): Plugin {
  const rules = [...depthRules(limits.maxDepth), aliasesRule(limits.maxAliases)];
  return {
    onParse({ setParseFn }) {
      setParseFn((source: string | Source, options?: ParseOptions) => {
        try {
          return parse(source, { ...options, maxTokens: limits.maxTokens });
        } catch (error) {
          if (!moreTokensThan(source, limits.maxTokens)) throw error;
          throw new GraphQLError(
            `The document has more than ${limits.maxTokens} tokens (MAX_TOKENS).`,
            { extensions: { code: 'GRAPHQL_PARSE_FAILED' } },
          );
        }
      });
    },
    onValidate({ params, addValidationRule, setResult }) {
      const document = params.documentAST as DocumentNode;
      const refusal = expansionRefusal(document, limits.maxExpandedSelections);
      if (refusal !== undefined) {
        setResult([refusal]);
        return;
      }
      for (const rule of rules) addValidationRule(rule);
    },
  };
}
