import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultQuery } from '../../src/graphiql/graphiql-page.ts';
import {
  browserMissing,
  chromiumPath,
  launchBrowser,
  loopbackHosts,
  replaceText,
  textOf,
  type Browser,
} from '../helpers/browser.ts';
import { readExamples } from '../helpers/examples.ts';
import { listen, startStack, type Stack } from '../helpers/stack.ts';

const missing = browserMissing('test/browser/graphiql.test.ts');
const executablePath = chromiumPath;
const loopback = loopbackHosts;

describe.skipIf(missing)(
  `GraphiQL in a real browser${missing ? ` (skipped: ${executablePath} is absent)` : ''}`,
  () => {
    let stack: Stack | undefined;
    let server: Awaited<ReturnType<typeof listen>> | undefined;
    let browser: Browser | undefined;

    beforeAll(async () => {
      stack = await startStack({ vro: { stepMs: 400 } });
      server = await listen(stack.gateway);
      browser = await launchBrowser();
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      await server?.close();
      await stack?.close();
    });

    it('runs the default query and shows data of all three upstreams, with no request leaving loopback', async () => {
      const gateway = server!;
      const { context, blocked, requested } = browser!;
      const expected = await stack!.gql<any>(defaultQuery);
      expect(expected.errors).toBeUndefined();
      const workflow: string = expected.data.workflows.nodes[0].name;
      const provider: string = expected.data.providers.nodes[0].name;
      const ipSet: string = expected.data.ipSets.find(
        (s: { name: string }) => s.name === 'IPSET-2',
      ).name;

      const page = await context.newPage();
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

    it('follows a workflow run with the subscription example until COMPLETED, with no header typed', async () => {
      const gateway = server!;
      const example = readExamples().find((e) => e.name === 'follow-workflow-run')!;
      const run = await stack!.gql<any>(
        'mutation($w: ID!) { runWorkflow(workflowId: $w) { execution { id } } }',
        { w: example.variables?.['workflowId'] },
      );
      expect(run.errors).toBeUndefined();
      const variables = { ...example.variables, executionId: run.data.runWorkflow.execution.id };

      const page = await browser!.context.newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await page.goto(`${gateway.url}/graphql`, { waitUntil: 'load' });
      const query = page.locator('.graphiql-query-editor');
      await page.locator('.graphiql-execute-button').waitFor({ state: 'visible', timeout: 30_000 });
      await query.locator('.view-lines').waitFor({ state: 'visible', timeout: 30_000 });
      await replaceText(page, query, example.document);
      await expect.poll(() => textOf(query)).toContain('subscription FollowWorkflowRun');

      await page
        .getByRole('button', { name: /variables/i })
        .first()
        .click();
      const variablesEditor = page.locator('.graphiql-editor-tool .graphiql-editor').first();
      await replaceText(page, variablesEditor, JSON.stringify(variables));

      const streamed = page.waitForResponse(
        (response) =>
          response.url().startsWith(`${gateway.url}/graphql?`) &&
          response.request().method() === 'GET',
        { timeout: 30_000 },
      );
      await page.locator('.graphiql-execute-button').click();
      const response = await streamed;
      expect(response.status()).toBe(200);
      expect(response.headers()['content-type']).toMatch(/^text\/event-stream/);

      const panel = page.locator('.graphiql-response');
      await expect.poll(() => textOf(panel), { timeout: 30_000 }).toContain('"COMPLETED"');
      const text = await textOf(panel);
      expect(text).not.toContain('"errors"');
      expect(text).toContain(`"${String(variables.executionId)}"`);
      await page.screenshot({ path: join(tmpdir(), 'graphiql-subscription.png') });
      expect(pageErrors).toEqual([]);
    }, 90_000);
  },
);
