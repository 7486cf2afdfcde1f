/**
 * The part of OData `$filter` the simulator understands: `field eq 'text'`
 * (a `/` path reaches nested fields, `''` is a quote inside the text), joined
 * with `and`/`or` (`and` binds tighter) and grouped with parentheses.
 * Anything else is refused, as vRA refuses what it cannot parse.
 */

export type Predicate = (item: unknown) => boolean;

export class FilterSyntaxError extends Error {}

type Token =
  | { kind: 'word'; text: string }
  | { kind: 'string'; text: string }
  | { kind: 'open' }
  | { kind: 'close' };

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i] ?? '';
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === '(' || ch === ')') {
      tokens.push({ kind: ch === '(' ? 'open' : 'close' });
      i++;
    } else if (ch === "'") {
      let text = '';
      i++;
      for (;;) {
        if (i >= source.length) throw new FilterSyntaxError('unterminated string literal');
        const c = source[i] ?? '';
        if (c === "'") {
          if (source[i + 1] === "'") {
            text += "'";
            i += 2;
            continue;
          }
          i++;
          break;
        }
        text += c;
        i++;
      }
      tokens.push({ kind: 'string', text });
    } else {
      const match = /^[A-Za-z@][\w/@.]*/.exec(source.slice(i));
      if (match === null) throw new FilterSyntaxError(`unexpected "${ch}"`);
      tokens.push({ kind: 'word', text: match[0] });
      i += match[0].length;
    }
  }
  return tokens;
}

function read(item: unknown, path: string): unknown {
  let value: unknown = item;
  for (const key of path.split('/')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** Compiles a `$filter`; `fields` lists the paths that may be filtered on. */
export function compileFilter(source: string, fields: readonly string[]): Predicate {
  const tokens = tokenize(source);
  let at = 0;
  const peekWord = (word: string): boolean => {
    const token = tokens[at];
    return token?.kind === 'word' && token.text.toLowerCase() === word;
  };

  const comparison = (): Predicate => {
    const token = tokens[at];
    if (token?.kind === 'open') {
      at++;
      const inner = disjunction();
      if (tokens[at]?.kind !== 'close') throw new FilterSyntaxError('missing ")"');
      at++;
      return inner;
    }
    if (token?.kind !== 'word') throw new FilterSyntaxError('expected a field name');
    if (!fields.includes(token.text)) {
      throw new FilterSyntaxError(`cannot filter on "${token.text}"`);
    }
    at++;
    if (!peekWord('eq')) throw new FilterSyntaxError('only the eq operator is supported');
    at++;
    const literal = tokens[at];
    if (literal?.kind !== 'string') throw new FilterSyntaxError('expected a quoted string');
    at++;
    const field = token.text;
    return (item) => read(item, field) === literal.text;
  };

  const conjunction = (): Predicate => {
    let predicate = comparison();
    while (peekWord('and')) {
      at++;
      const left = predicate;
      const right = comparison();
      predicate = (item) => left(item) && right(item);
    }
    return predicate;
  };

  const disjunction = (): Predicate => {
    let predicate = conjunction();
    while (peekWord('or')) {
      at++;
      const left = predicate;
      const right = conjunction();
      predicate = (item) => left(item) || right(item);
    }
    return predicate;
  };

  const predicate = disjunction();
  if (at !== tokens.length) throw new FilterSyntaxError('unexpected text after the expression');
  return predicate;
}
