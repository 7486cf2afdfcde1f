import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  browserMissing,
  chromiumPath,
  launchBrowser,
  replaceText,
  textOf,
  type Browser,
} from '../helpers/browser.ts';
import { listen, startStack, type Stack } from '../helpers/stack.ts';

const missing = browserMissing('test/browser/graphiql-order.test.ts');
const centos = 'c7a0e3d2-5b1f-4c8e-9a6d-3f2b1e0d9c01';

describe.skipIf(missing)(
  `GraphiQL orders a catalog item and follows it${missing ? ` (skipped: ${chromiumPath} is absent)` : ''}`,
  () => {
    let stack: Stack | undefined;
    let server: Awaited<ReturnType<typeof listen>> | undefined;
    let browser: Browser | undefined;

    beforeAll(async () => {
      stack = await startStack({ vra: { requestStepMs: 400 } });
      server = await listen(stack.gateway);
      browser = await launchBrowser();
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      await server?.close();
      await stack?.close();
    });

    /** A fresh GraphiQL tab, its editor ready. */
    async function openGraphiql(pageErrors: string[]): Promise<Page> {
      const page = await browser!.context.newPage();
      page.on('pageerror', (error) => pageErrors.push(error.message));
      // GraphiQL runs nothing until it has the schema.
      const introspected = page.waitForResponse(
        (response) => (response.request().postData() ?? '').includes('IntrospectionQuery'),
        { timeout: 30_000 },
      );
      await page.goto(`${server!.url}/graphql`, { waitUntil: 'load' });
      await introspected;
      await page.locator('.graphiql-execute-button').waitFor({ state: 'visible', timeout: 30_000 });
      await page
        .locator('.graphiql-query-editor .view-lines')
        .waitFor({ state: 'visible', timeout: 30_000 });
      return page;
    }

    /** Types an operation into the editor and runs it; the answer GraphiQL received. */
    async function run(page: Page, operation: string, method: 'GET' | 'POST') {
      const editor = page.locator('.graphiql-query-editor');
      await replaceText(page, editor, operation);
      await expect
        .poll(async () => (await textOf(editor)).replace(/\s+/g, ' '), { timeout: 10_000 })
        .toContain(operation.slice(0, 40));
      // GraphiQL takes the operation name from the editor after a debounce: run
      // before it has, and it asks for the previous one ("Cannot infer operation").
      const name = /^\w+ (\w+)/.exec(operation)?.[1] ?? '';
      await expect
        .poll(() => textOf(page.locator('.graphiql-tab-active')), { timeout: 10_000 })
        .toContain(name);
      await page.waitForTimeout(500);
      const answered = page.waitForResponse(
        (response) =>
          response.url().startsWith(`${server!.url}/graphql`) &&
          response.request().method() === method,
        { timeout: 30_000 },
      );
      await page.locator('.graphiql-execute-button').click();
      return answered;
    }

    it('orders with the mutation typed in the editor, then follows the request with the subscription until SUCCESSFUL, with no header typed', async () => {
      const pageErrors: string[] = [];
      const page = await openGraphiql(pageErrors);

      const ordered = await run(
        page,
        `mutation Order { requestCatalogItem(input: { catalogItemId: "${centos}", description: "from GraphiQL" }) { request { id state } } }`,
        'POST',
      );
      const body = (await ordered.json()) as {
        data?: { requestCatalogItem: { request: { id: string; state: string } } };
        errors?: unknown;
      };
      expect(body.errors).toBeUndefined();
      const request = body.data?.requestCatalogItem.request;
      expect(request?.state).toBe('SUBMITTED');
      const id = request?.id ?? '';
      expect(stack!.vra.consumer.request(id, stack!.vra.username)).toBeDefined();
      await expect
        .poll(() => textOf(page.locator('.graphiql-response')), { timeout: 30_000 })
        .toContain(`"${id}"`);

      // As a user would: a new tab to follow what was ordered.
      const follow = await openGraphiql(pageErrors);
      const streamed = await run(
        follow,
        `subscription Follow { catalogRequest(id: "${id}") { id state final resources { name } } }`,
        'GET',
      );
      expect(streamed.headers()['content-type']).toMatch(/^text\/event-stream/);
      const panel = follow.locator('.graphiql-response');
      await expect.poll(() => textOf(panel), { timeout: 30_000 }).toContain('"SUCCESSFUL"');
      const shown = await textOf(panel);
      expect(shown).toContain('"final": true');
      expect(shown).not.toContain('"errors"');
      await follow.screenshot({ path: join(tmpdir(), 'graphiql-order-follow.png') });
      expect(pageErrors).toEqual([]);
    }, 120_000);
  },
);
