import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Frame } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserMissing, launchBrowser, type Browser } from '../helpers/browser.ts';
import { listen, startStack, type Stack } from '../helpers/stack.ts';

const missing = browserMissing('test/browser/framing.test.ts');

/** A decoy page on a loopback port of its own (another origin) that frames `targets`. */
async function serveDecoy(targets: () => string[]): Promise<{ origin: string; server: Server }> {
  const server = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    if (request.url === '/own') {
      response.end('<!doctype html><title>decoy inner</title><p id="inner">inner</p>');
      return;
    }
    const frames = targets()
      .map((src, i) => `<iframe name="f${i}" src="${src}" width="800" height="600"></iframe>`)
      .join('');
    response.end(
      `<!doctype html><html><head><title>decoy</title></head><body>${frames}</body></html>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** Whether a frame shows a document of `origin` (a blocked frame shows Chromium's error page). */
async function shows(frame: Frame, origin: string): Promise<boolean> {
  if (!frame.url().startsWith(origin)) return false;
  return frame.evaluate(() => document.querySelector('body *') !== null).catch(() => false);
}

describe.skipIf(missing)('pages of the gateway in a frame of another site', () => {
  let stack: Stack;
  let gateway: Awaited<ReturnType<typeof listen>>;
  let browser: Browser;
  let decoy: Awaited<ReturnType<typeof serveDecoy>>;

  beforeAll(async () => {
    stack = await startStack();
    gateway = await listen(stack.gateway);
    decoy = await serveDecoy(() => [
      `${gateway.url}/graphql`,
      `${gateway.url}/portal/`,
      `${decoy.origin}/own`,
    ]);
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser.close();
    decoy.server.close();
    await gateway.close();
    await stack.close();
  });

  it('are not shown: GraphiQL and the portal stay empty while the decoy’s own frame loads', async () => {
    const page = await browser.context.newPage();
    const messages: string[] = [];
    page.on('console', (message) => messages.push(message.text()));
    const from = browser.requested.length;
    await page.goto(`${decoy.origin}/`, { waitUntil: 'load' });
    const frame = (name: string): Frame => {
      const found = page.frame({ name });
      if (found === null) throw new Error(`no frame ${name}`);
      return found;
    };
    // The control: a frame the decoy may show is shown, so "not shown" means blocked.
    await expect.poll(() => shows(frame('f2'), decoy.origin), { timeout: 10_000 }).toBe(true);
    expect(await shows(frame('f0'), gateway.url)).toBe(false);
    expect(await shows(frame('f1'), gateway.url)).toBe(false);
    // Nothing of either page ran: neither GraphiQL's bundle nor the portal's scripts were fetched.
    const requested = browser.requested.slice(from);
    expect(requested).toContain(`${gateway.url}/graphql`);
    expect(requested).toContain(`${gateway.url}/portal/`);
    expect(requested.filter((url) => url.includes('/graphiql-assets/'))).toEqual([]);
    expect(requested.filter((url) => /\/portal\/.+\.js$/.test(url))).toEqual([]);
    expect(messages.join('\n')).toMatch(/frame-ancestors|X-Frame-Options/);
    await page.close();
  }, 60_000);
});
