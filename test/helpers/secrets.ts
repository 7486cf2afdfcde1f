/**
 * Secrets as an upstream may echo them (every encoding the contract names),
 * and the scan for them in what the gateway says: answers, logs, traces.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DestinationStream } from 'pino';

/** The forms a secret takes when an upstream repeats it, by name. */
export function secretForms(secret: string, username = 'svc-user'): Record<string, string> {
  const json = JSON.stringify(secret).slice(1, -1);
  return {
    raw: secret,
    'JSON-escaped': json,
    'JSON-escaped twice': JSON.stringify(json).slice(1, -1),
    'JSON \\u-escaped': Array.from(
      { length: secret.length },
      (_, i) => `\\u${secret.charCodeAt(i).toString(16).padStart(4, '0')}`,
    ).join(''),
    'XML-escaped': xmlEscape(secret),
    'XML numeric references': Array.from(secret, (c) => `&#${c.codePointAt(0)};`).join(''),
    'URL-encoded (%20)': encodeURIComponent(secret),
    'URL-encoded (+)': encodeURIComponent(secret).replace(/%20/g, '+'),
    base64: Buffer.from(secret).toString('base64'),
    base64url: Buffer.from(secret).toString('base64url'),
    'base64 of user:password': Buffer.from(`${username}:${secret}`).toString('base64'),
    'base64 of a JSON login body': Buffer.from(
      JSON.stringify({ username, password: secret, tenant: 'corp' }),
    ).toString('base64'),
    ...Object.fromEntries(
      ['', 'x', 'xy'].map((prefix) => [
        `base64 inside a longer one, after ${prefix.length} bytes`,
        Buffer.from(`${prefix}${secret}-and-more-bytes`).toString('base64'),
      ]),
    ),
  };
}

/** An error text that repeats the secret in every form at once. */
export function echoOf(secret: string, username?: string): string {
  return Object.entries(secretForms(secret, username))
    .map(([name, form]) => `${name}: ${form}`)
    .join('; ');
}

function xmlEscape(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/**
 * Where `text` gives a secret away: any of its forms, or its bytes in what
 * decodes from any base64-looking run (at each of the four character offsets).
 */
export function leaksIn(text: string, secrets: Readonly<Record<string, string>>): string[] {
  const found: string[] = [];
  const runs = text.match(/[A-Za-z0-9+/_-]{6,}/g) ?? [];
  for (const [label, secret] of Object.entries(secrets)) {
    for (const [form, value] of Object.entries(secretForms(secret))) {
      if (text.includes(value)) found.push(`${label} (${form})`);
    }
    const bytes = Buffer.from(secret);
    for (const run of runs) {
      for (let offset = 0; offset < 4; offset += 1) {
        const piece = run.slice(offset);
        const decoded = Buffer.from(piece.slice(0, piece.length - (piece.length % 4)), 'base64');
        if (decoded.includes(bytes)) found.push(`${label} (decoded from base64 ${run})`);
      }
    }
  }
  return [...new Set(found)];
}

/** A pino destination that keeps every line. */
export function logLines(): DestinationStream & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    write(line: string) {
      lines.push(line);
    },
  };
}

/** An OTLP/HTTP endpoint on loopback that keeps every export as text. */
export async function startTraceSink(): Promise<{
  url: string;
  bodies: string[];
  close(): Promise<void>;
}> {
  const bodies: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
