import { readdirSync, readFileSync } from 'node:fs';
import { extname } from 'node:path';
import type { Plugin } from 'graphql-yoga';
import { servePath } from './serve-path.ts';

const portalPath = '/portal';

const types: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** Everything from this gateway only: the page works air-gapped and runs nothing foreign. */
const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The reference self-service portal (examples/portal/): its page, scripts and
 * style, read once at start-up, under `/portal/`. The scripts are plain
 * JavaScript modules (typed with JSDoc, checked by tsc): nothing is built
 * when they are served.
 */
export function portal(directory = new URL('../../examples/portal/', import.meta.url)): Plugin {
  const files = new Map<string, { body: string; type: string }>();
  for (const name of readdirSync(directory)) {
    const type = types[extname(name)];
    if (type !== undefined)
      files.set(name, { body: readFileSync(new URL(name, directory), 'utf8'), type });
  }
  return servePath(
    (pathname) => pathname === portalPath || pathname.startsWith(`${portalPath}/`),
    (pathname) => {
      if (pathname === portalPath) {
        return Promise.resolve(
          new Response(null, { status: 308, headers: { location: `${portalPath}/` } }),
        );
      }
      const name = pathname.slice(portalPath.length + 1) || 'index.html';
      const file = files.get(name);
      if (file === undefined) return Promise.resolve(new Response('Not found', { status: 404 }));
      return Promise.resolve(
        new Response(file.body, {
          headers: {
            'content-type': file.type,
            'cache-control': 'no-cache',
            'x-content-type-options': 'nosniff',
            'content-security-policy': contentSecurityPolicy,
          },
        }),
      );
    },
  );
}
