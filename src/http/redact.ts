/** What an upstream may repeat back in an error body, and must not reach a client or a log. */
interface Sensitive {
  /** The `Authorization` value sent (its credential, and a Basic password, are redacted too). */
  authorization?: string | undefined;
  /** Other values sent, e.g. a password in a token request body. */
  secrets?: readonly string[] | undefined;
  /** The upstream's API root: its origin and host are redacted. */
  baseUrl: URL;
}

const redacted = '[redacted]';
const schemeValue = /\b(Basic|Bearer|Digest|Negotiate)(?:\s|%20)+[A-Za-z0-9._~+/=-]{4,}/gi;

/** Shorter values are not redacted: they would take ordinary words out of every message. */
const shortestSecret = 4;
/** A base64 piece shorter than this could be anything; it is not searched for. */
const shortestBase64 = 4;

/**
 * Takes out of an upstream's error text every credential the request carried,
 * every secret the process knows (see `registerSecrets`), any
 * `Basic`/`Bearer` value, and the upstream's own address: some servers and
 * proxies echo the request in their error pages.
 */
export function redact(text: string, sensitive: Sensitive): string {
  const extra = [...(sensitive.secrets ?? []), ...authorizationSecrets(sensitive.authorization)];
  let out = redactSecrets(text, extra);
  for (const literal of [sensitive.baseUrl.origin, sensitive.baseUrl.host]) {
    if (literal.length >= shortestSecret) out = out.split(literal).join(redacted);
  }
  return out.replace(schemeValue, `$1 ${redacted}`);
}

/**
 * The secrets inside an `Authorization` value: the whole value, its
 * credential, and of a Basic credential the decoded `user:password` and the
 * password alone.
 */
export function authorizationSecrets(authorization: string | undefined): string[] {
  if (authorization === undefined) return [];
  const credential = authorization.replace(/^\S+\s+/, '');
  const secrets = [authorization, credential];
  if (/^basic\s/i.test(authorization)) {
    const decoded = Buffer.from(credential, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    secrets.push(decoded);
    if (colon >= 0) secrets.push(decoded.slice(colon + 1));
  }
  return secrets;
}

// ------------------------------------------------------------ the secrets this process knows

/**
 * Secrets of this process (configured passwords, gateway tokens, vRA tokens
 * obtained), with a count per value: the same password may be registered by
 * two gateways of one process, and stays known until both release it.
 */
const known = new Map<string, number>();

/**
 * Makes values known as secrets to every redaction of this process (error
 * messages, logs, traces) until the returned function is called.
 */
export function registerSecrets(values: Iterable<string | undefined>): () => void {
  const added = [...values].filter(
    (value): value is string => value !== undefined && value.length >= shortestSecret,
  );
  for (const value of added) known.set(value, (known.get(value) ?? 0) + 1);
  if (added.length > 0) knownMatcherCache = undefined;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    for (const value of added) {
      const count = (known.get(value) ?? 1) - 1;
      if (count <= 0) known.delete(value);
      else known.set(value, count);
    }
    if (added.length > 0) knownMatcherCache = undefined;
  };
}

/**
 * Replaces every secret the process knows, and the `extra` ones, in any form
 * an upstream or a log may carry it: as is, JSON-escaped (at any depth),
 * XML/HTML-escaped (named or numeric entities), URL-encoded (`%20` or `+`
 * for a space), and base64 (standard or URL alphabet, also inside a longer
 * base64 string at any of its three alignments, e.g. in a Basic credential).
 */
export function redactSecrets(text: string, extra: readonly string[] = []): string {
  const matcher = extra.length === 0 ? knownMatcher() : withExtra(extra);
  if (matcher === null) return text;
  // Without a character that starts an escape, only the plain forms can be there: a cheap look first.
  if (!escapeStart.test(text) && !matcher.plain.test(text)) return text;
  return text.replace(matcher.any, (match: string, offset: number) => {
    // A match that starts right after a lone backslash keeps its first
    // character: the backslash and it are one escape, and a JSON text stays valid.
    let slashes = 0;
    while (offset - slashes - 1 >= 0 && text[offset - slashes - 1] === '\\') slashes += 1;
    return slashes % 2 === 1 ? `${match.slice(0, 1)}${redacted}` : redacted;
  });
}

/** Every escaped form of a character starts with one of these. */
const escapeStart = /[\\&%+]/;

interface Matcher {
  /** Every form of every secret. */
  any: RegExp;
  /** The forms without escapes: the secrets and their base64 pieces as they are. */
  plain: RegExp;
}

let knownMatcherCache: Matcher | null | undefined;

function knownMatcher(): Matcher | null {
  if (knownMatcherCache === undefined) {
    knownMatcherCache = combined([...known.keys()]);
    extraMatchers.clear();
  }
  return knownMatcherCache;
}

/** The known secrets and a call's own (its credentials), per set of the call's: they repeat. */
const extraMatchers = new Map<string, Matcher | null>();
const extraMatchersSize = 64;

function withExtra(extra: readonly string[]): Matcher | null {
  knownMatcher();
  const key = extra.join('\u0000');
  let matcher = extraMatchers.get(key);
  if (matcher === undefined) {
    matcher = combined([...known.keys(), ...extra]);
    remember(extraMatchers, key, matcher, extraMatchersSize);
  }
  return matcher;
}

/** Adds to a bounded cache, forgetting the oldest entry when it is full. */
function remember<K, V>(cache: Map<K, V>, key: K, value: V, size: number): void {
  if (cache.size >= size) {
    const oldest = cache.keys().next();
    if (oldest.done !== true) cache.delete(oldest.value);
  }
  cache.set(key, value);
}

/** One expression for every form of every secret; the longest secrets first. */
function combined(secrets: readonly string[]): Matcher | null {
  const unique = [...new Set(secrets)].filter((secret) => secret.length >= shortestSecret);
  if (unique.length === 0) return null;
  unique.sort((a, b) => b.length - a.length);
  const forms = unique.map(formsOf);
  return {
    any: new RegExp(forms.flatMap((form) => form.patterns).join('|'), 'g'),
    plain: new RegExp(forms.flatMap((form) => form.plain).join('|')),
  };
}

interface Forms {
  patterns: readonly string[];
  plain: readonly string[];
}

const formCache = new Map<string, Forms>();
const formCacheSize = 512;

/** The expressions of one secret's forms (cached: building them is the costly part). */
function formsOf(secret: string): Forms {
  let forms = formCache.get(secret);
  if (forms === undefined) {
    const pieces = base64Pieces(secret);
    forms = {
      patterns: [textPattern(secret), ...pieces.map(base64Pattern)],
      plain: [secret, ...pieces].map(escapeRegExp),
    };
    remember(formCache, secret, forms, formCacheSize);
  }
  return forms;
}

/**
 * The base64 pieces that stand for a secret: of its bytes as is, and as they
 * are when JSON-, XML- or URL-encoded (e.g. a base64 of a JSON login body),
 * each at the three byte alignments, keeping only the characters that depend
 * on the secret's bytes alone; and its padded base64. In both alphabets.
 */
function base64Pieces(secret: string): string[] {
  // A lone surrogate has no URL encoding (encodeURIComponent throws): no upstream can echo one.
  const url = secret.isWellFormed() ? encodeURIComponent(secret) : undefined;
  const texts = new Set([
    secret,
    JSON.stringify(secret).slice(1, -1),
    xmlEscaped(secret),
    ...(url === undefined ? [] : [url, url.replace(/%20/g, '+')]),
  ]);
  const pieces = new Set<string>();
  for (const value of texts) {
    if (!value.isWellFormed()) continue;
    const bytes = Buffer.from(value, 'utf8');
    for (const shift of [0, 1, 2]) {
      const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
      pieces.add(
        encoded.slice(Math.ceil((8 * shift) / 6), Math.floor((8 * (shift + bytes.length)) / 6)),
      );
    }
  }
  const both = [...pieces].flatMap((piece) => [
    piece,
    piece.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''),
  ]);
  return [...new Set(both)].filter((piece) => piece.length >= shortestBase64);
}

function xmlEscaped(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** An expression matching `value` with each character as is or in any of its escaped forms. */
function textPattern(value: string): string {
  let source = '';
  for (const character of value) source += characterPattern(character);
  return source;
}

/**
 * A base64 piece: its letters and digits as they are (no encoder escapes
 * them), `+`, `/` and `=` in any escaped form. Small, so that many fit in one
 * expression.
 */
function base64Pattern(piece: string): string {
  let source = '';
  for (const character of piece) {
    source += /[A-Za-z0-9_-]/.test(character)
      ? escapeRegExp(character)
      : characterPattern(character);
  }
  return source;
}

const jsonShort: Readonly<Record<string, string>> = {
  '"': '"',
  '/': '/',
  '\b': 'b',
  '\f': 'f',
  '\n': 'n',
  '\r': 'r',
  '\t': 't',
};
const xmlNamed: Readonly<Record<string, string>> = {
  '&': 'amp',
  '<': 'lt',
  '>': 'gt',
  '"': 'quot',
  "'": 'apos',
};

const characterCache = new Map<string, string>();

function characterPattern(character: string): string {
  let pattern = characterCache.get(character);
  if (pattern !== undefined) return pattern;
  const codePoint = character.codePointAt(0) ?? 0;
  const forms = [escapeRegExp(character)];
  // JSON: \uXXXX (a surrogate pair for astral characters) or a short escape,
  // behind any number of backslashes (JSON in JSON).
  forms.push(
    [...Array.from({ length: character.length }, (_, i) => character.charCodeAt(i))]
      .map((unit) => `\\\\+u${hexPattern(unit, 4)}`)
      .join(''),
  );
  const short = jsonShort[character];
  if (character === '\\') forms.push('\\\\+');
  else if (short !== undefined) forms.push(`\\\\+${escapeRegExp(short)}`);
  // XML and HTML: named and numeric character references, also escaped again (&amp;lt;).
  const named = xmlNamed[character];
  const entities = [`#0*${codePoint};`, `#[xX]0*${hexPattern(codePoint, 1)};`];
  if (named !== undefined) entities.unshift(`${named};`);
  forms.push(`&(?:amp;)*(?:${entities.join('|')})`);
  // URL: percent-encoded UTF-8 (also encoded twice), `+` for a space.
  if (character.isWellFormed()) {
    const bytes = [...Buffer.from(character, 'utf8')];
    forms.push(bytes.map((byte) => `%(?:25)*${hexPattern(byte, 2)}`).join(''));
  }
  if (character === ' ') forms.push('\\+');
  pattern = `(?:${forms.join('|')})`;
  characterCache.set(character, pattern);
  return pattern;
}

/** Hexadecimal digits of `n`, at least `width` of them, letters in either case. */
function hexPattern(n: number, width: number): string {
  return n
    .toString(16)
    .padStart(width, '0')
    .replace(/[a-f]/g, (digit) => `[${digit}${digit.toUpperCase()}]`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}
