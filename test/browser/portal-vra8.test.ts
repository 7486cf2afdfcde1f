/**
 * The reference portal (examples/portal), unchanged, against a gateway on the
 * strict vRA 8 simulator, in headless Chromium: a developer signs in, sees
 * their name and only the items shared with their project, orders one and
 * watches the request reach its end, and signs out.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserMissing, chromiumPath, launchBrowser, type Browser } from '../helpers/browser.ts';
import { vra8, type GenerationStack } from '../helpers/generations.ts';
import { itemNames, openPortal, signIn, signInMessage, states } from '../helpers/portal.ts';
import { listen } from '../helpers/stack.ts';

const missing = browserMissing('test/browser/portal-vra8.test.ts');
const skipped = missing ? ` (skipped: ${chromiumPath} is absent)` : '';
/** Screenshots for a person to look at (gitignored). */
const shots = new URL('../../test-results/portal-vra8/', import.meta.url);

/** A default user of the vRA 8 simulator, member of Development (simulators/vra/v8/seed.ts). */
const developer = { username: 'developer@vsphere.local', password: 'developer-simulator' };
const { centos, development } = vra8.ids;
/** Items of the seed shared with other projects only. */
const notShared = ['PostgreSQL Database', 'Windows Server 2019'];

describe.skipIf(missing)(`The portal on vRA 8 in a real browser${skipped}`, () => {
  let harness: GenerationStack | undefined;
  let server: Awaited<ReturnType<typeof listen>> | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  const pageErrors: string[] = [];

  const shoot = (name: string) =>
    page!.screenshot({ path: join(shots.pathname, `${name}.png`), fullPage: true });

  /** The gateway_session cookie the browser holds, if any. */
  const sessionCookie = async () =>
    (await browser!.context.cookies(server!.url)).find((c) => c.name === 'gateway_session');

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    // a request stays in each state long enough for the page to show it
    harness = await vra8.start({ requestStepMs: 500 });
    expect(harness.stack.config.portal).toBe(true);
    server = await listen(harness.stack.gateway);
    browser = await launchBrowser({ width: 1280, height: 900 });
    page = await browser.context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await harness?.close();
  });

  it("signs the developer in: the header names them, the list holds their project's items only", async () => {
    await openPortal(page!, server!.url);
    await signIn(page!, developer);
    expect(await page!.locator('#viewer-name').innerText()).toBe(developer.username);
    expect(await page!.locator('#sign-out').innerText()).toBe('Sign out');
    expect(await page!.locator('#sign-in').isHidden()).toBe(true);
    expect(await itemNames(page!)).toEqual([centos.name]);
    const card = page!.locator(`[data-item="${centos.id}"]`);
    expect(await card.innerText()).toContain(centos.description);
    const body = await page!.locator('body').innerText();
    for (const name of notShared) expect(body).not.toContain(name);
    // the catalog was read with the developer's own vRA 8 bearer
    const reads = harness!.vra.requests.filter((r) => r.path === '/catalog/api/items');
    const bearer = /^Bearer (\S+)$/.exec(reads.at(-1)?.headers.authorization ?? '')?.[1] ?? '';
    expect(harness!.vra.bearerUser(bearer)).toBe(developer.username);
    // no deployment of the developer's yet: the page says there is no request
    const requests = page!.locator('#catalog-requests');
    await expect.poll(() => requests.innerText(), { timeout: 30_000 }).toContain('None yet.');
    await shoot('01-catalog');
  }, 60_000);

  it('draws the request form from the item, submits it and shows the request advancing to its end', async () => {
    await page!.locator(`[data-item="${centos.id}"]`).click();
    const hostname = page!.locator('#form-hostname');
    await hostname.waitFor({ timeout: 30_000 });
    expect(await page!.locator('#request-form h2').innerText()).toBe(centos.name);
    expect(await page!.locator('#business-group option').allInnerTexts()).toEqual([
      development.name,
    ]);
    // drawn from the item's form: labels, a choice as a select, the required field marked
    expect(await page!.locator('label[for="form-hostname"]').innerText()).toBe('Host name *');
    expect(await page!.locator('#form-size option').allInnerTexts()).toEqual([
      'small',
      'medium',
      'large',
    ]);
    const cpu = page!.locator('#form-cpuCount');
    expect(await cpu.inputValue()).toBe('1');
    // bounds are enforced before anything is sent
    const submits = () =>
      harness!.vra.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/request'))
        .length;
    await page!.locator('#request-form button[type=submit]').click();
    await expect
      .poll(() => page!.locator('[data-field="hostname"] .field-error').innerText())
      .toBe('Host name is required.');
    await hostname.fill('portal-01');
    await cpu.fill('9');
    await page!.locator('#request-form button[type=submit]').click();
    await expect
      .poll(() => page!.locator('[data-field="cpuCount"] .field-error').innerText())
      .toBe('CPUs must be at most 8.');
    expect(await cpu.getAttribute('aria-invalid')).toBe('true');
    expect(submits()).toBe(0);
    await cpu.fill('2');
    await page!.locator('#request-description').fill('Portal test machine');
    await shoot('02-request-form');
    await page!.locator('#request-form button[type=submit]').click();
    const final = page!.locator('#catalog-progress [data-state="SUCCESSFUL"]').first();
    await final.waitFor({ timeout: 30_000 });
    // the states came one by one over the subscription, in order
    const timeline = await states(page!.locator('#catalog-progress .timeline'));
    expect(timeline.length).toBeGreaterThan(1);
    expect(timeline[0]).toBe('SUBMITTED');
    expect(timeline.at(-1)).toBe('SUCCESSFUL');
    expect(['SUBMITTED', 'IN_PROGRESS', 'SUCCESSFUL'].filter((s) => timeline.includes(s))).toEqual([
      ...new Set(timeline),
    ]);
    const posted = harness!.vra.requests.filter(
      (r) => r.method === 'POST' && r.path === `/catalog/api/items/${centos.id}/request`,
    );
    expect(posted).toHaveLength(1);
    expect(JSON.parse(posted[0]!.body.toString('utf8'))).toEqual({
      deploymentName: 'Portal test machine',
      projectId: development.id,
      inputs: { size: 'small', cpuCount: 2, hostname: 'portal-01' },
    });
    // sent with the developer's own vRA 8 bearer, not the gateway's service account
    const bearer = /^Bearer (\S+)$/.exec(posted[0]!.headers.authorization ?? '')?.[1] ?? '';
    expect(harness!.vra.bearerUser(bearer)).toBe(developer.username);
    // then what it built: the machine, on, with its actions
    const machine = page!.locator('.resource').filter({ hasText: vra8.ids.machineType }).first();
    await machine.waitFor({ timeout: 30_000 });
    expect(await machine.locator('dt:text-is("powerState") + dd').innerText()).toBe('ON');
    expect(await machine.locator('dt:text-is("cpuCount") + dd').innerText()).toBe('2');
    expect(await machine.locator('[data-action]').allInnerTexts()).toContain('Power Off');
    // "Your requests" lists the order, as on vRA 7: the deployment's last request
    const id = await page!.locator('#catalog-progress .timeline').getAttribute('data-request');
    const row = page!.locator(`#catalog-requests li[data-request-id="${id}"]`);
    await expect.poll(() => row.count(), { timeout: 30_000 }).toBe(1);
    expect(await row.innerText()).toContain('Portal test machine');
    expect(await row.locator('[data-state]').getAttribute('data-state')).toBe('SUCCESSFUL');
    await shoot('03-request-done');
    expect(harness!.vra.refusals()).toEqual([]);
  }, 60_000);

  it('signs out: back to the sign-in form, the cookie gone, the vRA 8 bearer revoked', async () => {
    const bearers = harness!.vra.requests
      .map((r) => /^Bearer (\S+)$/.exec(r.headers.authorization ?? '')?.[1])
      .filter(
        (t): t is string => t !== undefined && harness!.vra.bearerUser(t) === developer.username,
      );
    expect(bearers.length).toBeGreaterThan(0);
    await page!.locator('#sign-out').click();
    await page!.locator('#sign-in-form').waitFor({ state: 'visible', timeout: 30_000 });
    expect(await signInMessage(page!)).toBe('You have signed out.');
    expect(await page!.locator('#catalog').isHidden()).toBe(true);
    expect(await page!.locator('.card').count()).toBe(0);
    expect(await page!.locator('#account').innerText()).toBe('');
    expect(await sessionCookie()).toBeUndefined();
    const logouts = harness!.vra.requests.filter(
      (r) => r.method === 'POST' && r.path === '/csp/gateway/am/api/auth/logout',
    );
    expect(logouts).toHaveLength(1);
    for (const bearer of new Set(bearers)) expect(harness!.vra.bearerUser(bearer)).toBeUndefined();
    await shoot('04-signed-out');
    expect(pageErrors).toEqual([]);
    expect(browser!.blocked).toEqual([]);
    expect(harness!.vra.refusals()).toEqual([]);
  }, 60_000);
});
