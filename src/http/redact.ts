/** What an upstream may repeat back in an error body, and must not reach a client or a log. */
export interface Sensitive {
  /** The `Authorization` value sent (its credential, and a Basic password, are redacted too). */
  authorization?: string | undefined;
  /** Other values sent, e.g. a password in a token request body. */
  secrets?: readonly string[] | undefined;
  /** The upstream's API root: its origin and host are redacted. */
  baseUrl: URL;
}

const redacted = '[redacted]';
const schemeValue = /\b(Basic|Bearer|Digest|Negotiate)\s+[A-Za-z0-9._~+/=-]{4,}/gi;

/**
 * Takes out of an upstream's error text every credential the request carried,
 * any `Basic`/`Bearer` value, and the upstream's own address: some servers
 * and proxies echo the request in their error pages.
 */
export function redact(text: string, sensitive: Sensitive): string {
  const literals = [...(sensitive.secrets ?? []), sensitive.baseUrl.origin, sensitive.baseUrl.host];
  const authorization = sensitive.authorization;
  if (authorization !== undefined) {
    const credential = authorization.replace(/^\S+\s+/, '');
    literals.push(authorization, credential);
    if (/^basic\s/i.test(authorization)) {
      const decoded = Buffer.from(credential, 'base64').toString('utf8');
      literals.push(decoded, decoded.slice(decoded.indexOf(':') + 1));
    }
  }
  let out = text;
  for (const literal of literals.filter((l) => l.length >= 4).sort((a, b) => b.length - a.length)) {
    out = out.split(literal).join(redacted);
  }
  return out.replace(schemeValue, `$1 ${redacted}`);
}
