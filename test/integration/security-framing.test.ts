import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../helpers/stack.ts';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ env: { PORTAL: 'true' } });
});
afterAll(async () => {
  await stack.close();
});

const frameAncestors = (policy: string | null): string[] =>
  (policy ?? '')
    .split(';')
    .map((d) => d.trim())
    .filter((d) => d.startsWith('frame-ancestors'));

describe('every HTML page of the gateway', () => {
  it.each([
    ['GraphiQL', '/graphql'],
    ['GraphiQL with a query string', '/graphql?query=%7B__typename%7D'],
    ['the portal', '/portal/'],
    ['the portal’s index', '/portal/index.html'],
  ])('forbids framing: %s (%s)', async (_what, path) => {
    const response = await stack.fetch(path, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(frameAncestors(response.headers.get('content-security-policy'))).toEqual([
      "frame-ancestors 'none'",
    ]);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
  });

  it('keeps the portal’s own policy whole, with one frame-ancestors', async () => {
    const response = await stack.fetch('/portal/');
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self'");
    expect(frameAncestors(policy)).toHaveLength(1);
  });
});
