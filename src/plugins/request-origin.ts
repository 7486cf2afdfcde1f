/**
 * Where a request comes from, as far as a browser says:
 * - `own`: a page of the gateway itself (GraphiQL): its `Origin` is the
 *   request's own origin (scheme, Host and port), or, with no `Origin` (a
 *   same-origin GET), `Sec-Fetch-Site` says same-origin or a typed-in URL;
 * - `allowed`: a page of an origin listed in CORS_ORIGINS;
 * - `foreign`: any other page, including one that sends no `Origin` but whose
 *   browser tells (`Sec-Fetch-Site`) that it is another site (an `<img>`, a form);
 * - `none`: not a browser (curl, a server-side client, a test): neither header.
 */
export type RequestOrigin = 'own' | 'allowed' | 'foreign' | 'none';

export function requestOrigin(
  request: Request,
  url: URL,
  allowed: ReadonlySet<string>,
): RequestOrigin {
  const origin = request.headers.get('origin');
  if (origin !== null) {
    if (origin === url.origin) return 'own';
    return allowed.has(origin) ? 'allowed' : 'foreign';
  }
  const site = request.headers.get('sec-fetch-site');
  if (site === null) return 'none';
  return site === 'same-origin' || site === 'none' ? 'own' : 'foreign';
}
