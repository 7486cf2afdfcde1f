import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserMissing, chromiumPath } from '../helpers/browser.ts';
import { listen, startStack, upstreamCalls, type Stack } from '../helpers/stack.ts';

const missing = browserMissing('test/browser/rebinding.test.ts');

/**
 * DNS rebinding in a real browser: the attacker's page is first served from
 * http://evil.test:<port>/ (here: fulfilled by the test, as the attacker's
 * server would), then evil.test resolves to 127.0.0.1 (the browser's host
 * resolver rule), so the page's same-origin requests reach the gateway.
 */
describe.skipIf(missing)('a page on a rebinding name in a real browser', () => {
  let stack: Stack;
  let gateway: Awaited<ReturnType<typeof listen>>;
  let context: BrowserContext;
  let profile: string;

  beforeAll(async () => {
    stack = await startStack();
    gateway = await listen(stack.gateway);
    profile = mkdtempSync(join(tmpdir(), 'gateway-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--host-resolver-rules=MAP evil.test 127.0.0.1',
        // Chromium's own Local Network Access checks would also stop this page;
        // other browsers have none, so the gateway must refuse it by itself.
        '--disable-features=BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessSendPreflights,LocalNetworkAccessChecks',
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
    await gateway.close();
    await stack.close();
  });

  it('cannot run a mutation through the gateway: 421, and NSX hears nothing', async () => {
    const origin = `http://evil.test:${new URL(gateway.url).port}`;
    const page = await context.newPage();
    await page.route(`${origin}/`, (route) =>
      route.fulfill({
        status: 200,
        contentType: 'text/html; charset=utf-8',
        body: '<!doctype html><title>cute cats</title>',
      }),
    );
    await page.goto(`${origin}/`);
    const before = upstreamCalls(stack);
    const attempt = await page.evaluate(async () => {
      const response = await fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query:
            'mutation { createIpSet(scopeId: "globalroot-0", input: { name: "rebound", addresses: ["10.0.0.1"] }) { id } }',
        }),
      });
      return { status: response.status, body: await response.text() };
    });
    expect(attempt.status).toBe(421);
    expect(attempt.body).not.toContain('createIpSet');
    expect(upstreamCalls(stack)).toBe(before);
    await page.close();
  }, 60_000);
});
