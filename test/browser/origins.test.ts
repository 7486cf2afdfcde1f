import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserMissing, launchBrowser, type Browser } from '../helpers/browser.ts';
import { listen, startStack, upstreamCalls, type Stack } from '../helpers/stack.ts';

const missing = browserMissing('test/browser/origins.test.ts');

/** A front-end's page on a loopback port of its own: another origin than the gateway's. */
async function servePage(): Promise<{ origin: string; server: Server }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><html><head><title>front-end</title></head><body></body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

interface Attempt {
  ok: boolean;
  status?: number;
  type?: string;
  body?: unknown;
  error?: string;
}

/** Runs `fetch` in the page, as the front-end's own script would. */
function fetchFromPage(
  page: Page,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; mode?: RequestMode },
): Promise<Attempt> {
  return page.evaluate(
    async ({ url, init }) => {
      try {
        const response = await fetch(url, { ...init, credentials: 'include' });
        const text = response.type === 'opaque' ? '' : await response.text();
        return {
          ok: response.ok,
          status: response.status,
          type: response.type,
          body: text === '' ? undefined : (JSON.parse(text) as unknown),
        };
      } catch (error) {
        return { ok: false, error: String(error) };
      }
    },
    { url, init },
  );
}

const query = '{ workflows(first: 1) { totalCount } }';
let created = 0;
const mutation = (): string =>
  `mutation { createIpSet(scopeId: "globalroot-0", input: { name: "browser-${++created}", addresses: ["10.0.0.9"] }) { id name } }`;

describe.skipIf(missing)('pages of other origins in a real browser', () => {
  let stack: Stack;
  let gateway: Awaited<ReturnType<typeof listen>>;
  let browser: Browser;
  let foreign: Awaited<ReturnType<typeof servePage>>;
  let allowed: Awaited<ReturnType<typeof servePage>>;

  beforeAll(async () => {
    [foreign, allowed] = await Promise.all([servePage(), servePage()]);
    stack = await startStack({ env: { CORS_ORIGINS: allowed.origin } });
    gateway = await listen(stack.gateway);
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser.close();
    await gateway.close();
    await stack.close();
    for (const page of [foreign, allowed]) page.server.close();
  });

  const endpoint = () => `${gateway.url}/graphql`;
  const postJson = (document: string) => ({
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: document }),
  });

  it('cannot run a query or a mutation from a page on another loopback port, and vRO and NSX hear nothing', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${foreign.origin}/`);
    const nsxBefore = stack.nsx.requests.length;
    const before = upstreamCalls(stack);

    const get = await fetchFromPage(page, `${endpoint()}?query=${encodeURIComponent(query)}`, {});
    expect(get.ok).toBe(false);
    expect(get.error).toMatch(/Failed to fetch/);

    const post = await fetchFromPage(page, endpoint(), postJson(query));
    expect(post.error).toMatch(/Failed to fetch/);

    const mutate = await fetchFromPage(page, endpoint(), postJson(mutation()));
    expect(mutate.error).toMatch(/Failed to fetch/);

    // The way around the preflight: a "simple" request the browser sends unasked and
    // whose answer the page may not read. The gateway must refuse it by itself.
    const blind = await fetchFromPage(page, endpoint(), {
      method: 'POST',
      mode: 'no-cors',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ query: mutation() }),
    });
    expect(blind.type).toBe('opaque');

    expect(stack.nsx.requests.length).toBe(nsxBefore);
    expect(upstreamCalls(stack)).toBe(before);
    await page.close();
  }, 60_000);

  it('runs a query and a mutation from a page of CORS_ORIGINS, with credentials', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${allowed.origin}/`);
    const from = stack.nsx.requests.length;

    const get = await fetchFromPage(page, `${endpoint()}?query=${encodeURIComponent(query)}`, {});
    expect(get).toMatchObject({
      ok: true,
      status: 200,
      body: { data: { workflows: { totalCount: expect.any(Number) } } },
    });

    const mutate = await fetchFromPage(page, endpoint(), postJson(mutation()));
    expect(mutate).toMatchObject({
      ok: true,
      status: 200,
      body: { data: { createIpSet: { id: expect.stringMatching(/^ipset-/) } } },
    });
    const sent = stack.nsx.requests.slice(from).filter((r) => r.method === 'POST');
    expect(sent).toHaveLength(1);
    await page.close();
  }, 60_000);
});
