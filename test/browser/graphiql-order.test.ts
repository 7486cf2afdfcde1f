import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, startStack, type Stack } from '../helpers/stack.ts';

const executablePath = '/usr/bin/chromium';
const missing = !existsSync(executablePath);
if (missing) {
  console.warn(
    `test/browser/graphiql-order.test.ts is SKIPPED: ${executablePath} is absent (install it: apt-get install -y chromium).`,
  );
}
/** What an editor shows (Monaco renders spaces as no-break spaces). */
const textOf = async (locator: Locator): Promise<string> =>
  (await locator.innerText()).replace(/\u00a0/g, ' ');

const centos = 'c7a0e3d2-5b1f-4c8e-9a6d-3f2b1e0d9c01';

/** Replaces the query editor's text the way a user pasting an operation would, then runs it. */
async function typeAndRun(page: Page, operation: string): Promise<void> {
  const editor = page.locator('.graphiql-query-editor');
  await editor.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(operation);
  await expect
    .poll(async () => (await textOf(editor)).replace(/\s+/g, ' '), { timeout: 10_000 })
    .toContain(operation.slice(0, 40).replace(/\s+/g, ' '));
  await page.locator('.graphiql-execute-button').click();
}

describe.skipIf(missing)(
  `GraphiQL orders a catalog item and follows it${missing ? ` (skipped: ${executablePath} is absent)` : ''}`,
  () => {
    let stack: Stack | undefined;
    let server: Awaited<ReturnType<typeof listen>> | undefined;
    let context: BrowserContext | undefined;
    let profile: string | undefined;

    beforeAll(async () => {
      stack = await startStack({ vra: { requestStepMs: 400 } });
      server = await listen(stack.gateway);
      profile = mkdtempSync(join(tmpdir(), 'graphiql-order-chromium-'));
      context = await chromium.launchPersistentContext(profile, {
        executablePath,
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
        viewport: { width: 1400, height: 2400 },
      });
    }, 60_000);

    afterAll(async () => {
      await context?.close();
      if (profile !== undefined) rmSync(profile, { recursive: true, force: true });
      await server?.close();
      await stack?.close();
    });

    /** Opens GraphiQL and waits until its editor shows the default query. */
    async function openGraphiql(): Promise<{ page: Page; pageErrors: string[] }> {
      const page = await context!.newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await page.goto(`${server!.url}/graphql`, { waitUntil: 'load' });
      await page.locator('.graphiql-execute-button').waitFor({ state: 'visible', timeout: 30_000 });
      await expect
        .poll(() => textOf(page.locator('.graphiql-query-editor')), { timeout: 30_000 })
        .toContain('query Explore');
      return { page, pageErrors };
    }

    /** Runs the order mutation in GraphiQL: the new request's id. */
    async function order(page: Page): Promise<string> {
      const ordered = page.waitForResponse(
        (response) =>
          response.url() === `${server!.url}/graphql` && response.request().method() === 'POST',
        { timeout: 30_000 },
      );
      await typeAndRun(
        page,
        `mutation Order { requestCatalogItem(input: { catalogItemId: "${centos}", description: "from GraphiQL" }) { request { id state } } }`,
      );
      const body = (await (await ordered).json()) as { data?: any; errors?: unknown };
      expect(body.errors).toBeUndefined();
      expect(body.data.requestCatalogItem.request.state).toBe('SUBMITTED');
      return body.data.requestCatalogItem.request.id as string;
    }

    it('submits the order mutation typed in the editor and shows the new request', async () => {
      const { page, pageErrors } = await openGraphiql();
      const id = await order(page);
      expect(stack!.vra.consumer.request(id, stack!.vra.username)).toBeDefined();
      await expect
        .poll(() => textOf(page.locator('.graphiql-response')), { timeout: 30_000 })
        .toContain(`"${id}"`);
      expect(pageErrors).toEqual([]);
    }, 90_000);

    // GraphiQL sends subscriptions as a GET EventSource, which can carry no
    // header, and the CSRF plugin refuses a GET without `x-graphql-csrf`: the
    // runtime contract's "GraphiQL runs every kind of operation" is another
    // branch's work. Unskip once GraphiQL subscriptions pass the CSRF check.
    it.skip('follows the ordered request with the subscription until SUCCESSFUL', async () => {
      const { page, pageErrors } = await openGraphiql();
      const id = await order(page);
      await typeAndRun(
        page,
        `subscription Follow { catalogRequest(id: "${id}") { id state final resources { name } } }`,
      );
      const panel = page.locator('.graphiql-response');
      await expect.poll(() => textOf(panel), { timeout: 30_000 }).toContain('"SUCCESSFUL"');
      const shown = await textOf(panel);
      expect(shown).toContain('"final": true');
      expect(shown).not.toContain('"errors"');
      await page.screenshot({ path: join(tmpdir(), 'graphiql-order-follow.png') });
      expect(pageErrors).toEqual([]);
    }, 90_000);
  },
);
