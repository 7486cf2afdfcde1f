import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultQuery } from '../../src/graphiql/graphiql-page.ts';
import { listen, startStack, type Stack } from '../helpers/stack.ts';

const executablePath = '/usr/bin/chromium';
const missing = !existsSync(executablePath);
if (missing) {
  console.warn(
    `test/browser/graphiql.test.ts is SKIPPED: ${executablePath} is absent (install it: apt-get install -y chromium; .ci/run does).`,
  );
}
/** What an editor shows (Monaco renders spaces as no-break spaces). */
const textOf = async (locator: Locator): Promise<string> =>
  (await locator.innerText()).replace(/\u00a0/g, ' ');

const loopback = new Set(['127.0.0.1', 'localhost', '[::1]']);

describe.skipIf(missing)(
  `GraphiQL in a real browser${missing ? ` (skipped: ${executablePath} is absent)` : ''}`,
  () => {
    let stack: Stack | undefined;
    let server: Awaited<ReturnType<typeof listen>> | undefined;
    let context: BrowserContext | undefined;
    let profile: string | undefined;
    const blocked: string[] = [];
    const requested: string[] = [];

    beforeAll(async () => {
      stack = await startStack();
      server = await listen(stack.gateway);
      profile = mkdtempSync(join(tmpdir(), 'graphiql-chromium-'));
      context = await chromium.launchPersistentContext(profile, {
        executablePath,
        headless: true,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
        viewport: { width: 1400, height: 2400 },
      });
      context.on('request', (request) => requested.push(request.url()));
      await context.route('**/*', async (route) => {
        const url = new URL(route.request().url());
        if (url.protocol === 'data:' || url.protocol === 'blob:' || loopback.has(url.hostname)) {
          await route.continue();
        } else {
          blocked.push(url.href);
          await route.abort('blockedbyclient');
        }
      });
    }, 60_000);

    afterAll(async () => {
      await context?.close();
      if (profile !== undefined) rmSync(profile, { recursive: true, force: true });
      await server?.close();
      await stack?.close();
    });

    it('runs the default query and shows data of all three upstreams, with no request leaving loopback', async () => {
      const [gateway, browser] = [server!, context!];
      const expected = await stack!.gql<any>(defaultQuery);
      expect(expected.errors).toBeUndefined();
      const workflow: string = expected.data.workflows.nodes[0].name;
      const provider: string = expected.data.providers.nodes[0].name;
      const ipSet: string = expected.data.ipSets.find(
        (s: { name: string }) => s.name === 'IPSET-2',
      ).name;

      const page = await browser.newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await page.goto(`${gateway.url}/graphql`, { waitUntil: 'load' });
      const run = page.locator('.graphiql-execute-button');
      await run.waitFor({ state: 'visible', timeout: 30_000 });
      await expect
        .poll(() => textOf(page.locator('.graphiql-query-editor')), { timeout: 30_000 })
        .toContain('query Explore');

      const answered = page.waitForResponse(
        (response) =>
          response.url() === `${gateway.url}/graphql` && response.request().method() === 'POST',
        { timeout: 30_000 },
      );
      await run.click();
      const response = await answered;
      expect(response.status()).toBe(200);
      const body = (await response.json()) as { data?: any; errors?: unknown };
      expect(body.errors).toBeUndefined();
      expect(body.data.providers.nodes[0].name).toBe(provider);

      const panel = page.locator('.graphiql-response');
      const shown = () => textOf(panel);
      await expect.poll(shown, { timeout: 30_000 }).toContain(`"${ipSet}"`);
      const text = await shown();
      expect(text).toContain(`"${workflow}"`);
      expect(text).toContain(`"${provider}"`);
      expect(text).not.toContain('"errors"');

      await page.screenshot({
        path: join(tmpdir(), 'graphiql-default-query.png'),
        fullPage: false,
      });
      expect(pageErrors).toEqual([]);
      expect(blocked).toEqual([]);
      const hosts = new Set(requested.map((url) => new URL(url).hostname).filter(Boolean));
      expect([...hosts].filter((host) => !loopback.has(host))).toEqual([]);
      expect(requested.some((url) => url.includes('/graphiql-assets/graphiql.js'))).toBe(true);
    }, 90_000);
  },
);
