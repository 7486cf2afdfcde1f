import { mkdirSync } from 'node:fs';
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
import { itemNames, openPortal, signIn, signInMessage, submitSignIn } from '../helpers/portal.ts';
import { listen, startStack, type Stack } from '../helpers/stack.ts';

const missing = browserMissing('test/browser/portal-sign-in.test.ts');
const skipped = missing ? ` (skipped: ${chromiumPath} is absent)` : '';
/** Screenshots for a person to look at (gitignored). */
const shots = new URL('../../test-results/portal-sign-in/', import.meta.url);

/** Default users of the vRA simulator (simulators/vra/users.ts). */
const dba = { username: 'dba@vsphere.local', password: 'dba-simulator' };
const developer = { username: 'developer@vsphere.local', password: 'developer-simulator' };
const tester = { username: 'tester@vsphere.local', password: 'tester-simulator' };
const passwords = [dba.password, developer.password, tester.password, 'not-the-password'];
const restricted = 'Oracle Database (restricted)';
const centos = 'c7a0e3d2-5b1f-4c8e-9a6d-3f2b1e0d9c01';
const provisionLinux = 'a9488d99-0bbb-4599-91ce-5dd2b45ed1f0';

describe.skipIf(missing)(`Signing in to the portal in a real browser${skipped}`, () => {
  let stack: Stack | undefined;
  let server: Awaited<ReturnType<typeof listen>> | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  const pageErrors: string[] = [];
  const consoleLines: string[] = [];

  const shoot = (name: string) =>
    page!.screenshot({ path: join(shots.pathname, `${name}.png`), fullPage: true });

  /** The gateway_session cookie the browser holds, if any. */
  const sessionCookie = async () =>
    (await browser!.context.cookies(server!.url)).find((c) => c.name === 'gateway_session');

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    stack = await startStack();
    server = await listen(stack.gateway);
    browser = await launchBrowser({ width: 1280, height: 900 });
    page = await browser.context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => consoleLines.push(message.text()));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await stack?.close();
  });

  it('shows only the sign-in form when no session exists, its fields described for password managers', async () => {
    await openPortal(page!, server!.url);
    expect(await page!.locator('#sign-in-form h2').innerText()).toBe('Sign in');
    const username = page!.locator('#username');
    const password = page!.locator('#password');
    const tenant = page!.locator('#tenant');
    expect(await username.getAttribute('autocomplete')).toBe('username');
    expect(await password.getAttribute('type')).toBe('password');
    expect(await password.getAttribute('autocomplete')).toBe('current-password');
    expect(await tenant.inputValue()).toBe('vsphere.local');
    expect(await page!.locator('#sign-in-form').getAttribute('method')).toBe('post');
    // the labels say what each field is
    expect(await page!.locator('#sign-in-form label').allInnerTexts()).toEqual([
      'User name',
      'Password',
      'Tenant',
    ]);
    // nothing of the catalog: no tabs, no items, no one named in the header
    expect(await page!.locator('nav').isHidden()).toBe(true);
    expect(await page!.locator('#catalog').isHidden()).toBe(true);
    expect(await page!.locator('#workflows').isHidden()).toBe(true);
    expect(await page!.locator('.card').count()).toBe(0);
    expect(await page!.locator('#account').innerText()).toBe('');
    expect(await page!.locator('body').innerText()).not.toContain('CentOS');
  }, 60_000);

  it('says a wrong password is not accepted, keeps the user name and shows no list', async () => {
    await submitSignIn(page!, { username: developer.username, password: 'not-the-password' });
    const alert = page!.locator('#sign-in-message [role=alert]');
    await alert.waitFor({ timeout: 30_000 });
    expect(await alert.innerText()).toBe(
      'The user name, password or tenant is not accepted by vRA.',
    );
    expect(await page!.locator('#username').inputValue()).toBe(developer.username);
    expect(await page!.locator('#password').inputValue()).toBe('');
    expect(await page!.locator('#catalog').isHidden()).toBe(true);
    expect(await page!.locator('.card').count()).toBe(0);
    expect(await page!.locator('#sign-out').count()).toBe(0);
    expect(await sessionCookie()).toBeUndefined();
    await shoot('01-wrong-password');
  }, 60_000);

  it("signs the developer in: the header names them, the list holds the developer's items only", async () => {
    await signIn(page!, developer);
    expect(await page!.locator('#viewer-name').innerText()).toBe(developer.username);
    expect(await page!.locator('#viewer-tenant').innerText()).toBe('vsphere.local');
    expect(await page!.locator('#sign-out').innerText()).toBe('Sign out');
    expect(await page!.locator('#sign-in').isHidden()).toBe(true);
    const names = await itemNames(page!);
    expect(names).toContain('CentOS 7 Machine');
    expect(names).not.toContain(restricted);
    expect(await page!.locator('body').innerText()).not.toContain(restricted);
    // a fresh simulator: the developer has ordered nothing yet
    const requests = page!.locator('#catalog-requests');
    await expect.poll(() => requests.innerText(), { timeout: 30_000 }).toContain('None yet.');
    expect(await requests.locator('h3').innerText()).toBe('Your requests');
    expect(await requests.locator('li').count()).toBe(0);
    // the developer may order: the request form has its button
    await page!.locator(`[data-item="${centos}"]`).click();
    await page!.locator('#request-form').waitFor({ timeout: 30_000 });
    expect(await page!.locator('#request-form button[type=submit]').innerText()).toBe('Request');
    expect(await page!.locator('#order-not-allowed').count()).toBe(0);
    await shoot('02-developer');
  }, 60_000);

  it('keeps the session in an HttpOnly, SameSite=Strict cookie that no script of the page can read', async () => {
    const cookie = await sessionCookie();
    expect(cookie).toBeDefined();
    expect(cookie!.httpOnly).toBe(true);
    expect(cookie!.sameSite).toBe('Strict');
    expect(cookie!.path).toBe('/');
    expect(cookie!.value).not.toBe('');
    expect(await page!.evaluate(() => document.cookie)).not.toContain('gateway_session');
  });

  it('lets GraphiQL on the same browser act as the signed-in user: its fetch carries the cookie', async () => {
    const graphiql = await browser!.context.newPage();
    graphiql.on('pageerror', (error) => pageErrors.push(error.message));
    const introspected = graphiql.waitForResponse(
      (response) => (response.request().postData() ?? '').includes('IntrospectionQuery'),
      { timeout: 30_000 },
    );
    await graphiql.goto(`${server!.url}/graphql`, { waitUntil: 'load' });
    await introspected;
    await graphiql.locator('.graphiql-execute-button').waitFor({ state: 'visible' });
    const editor = graphiql.locator('.graphiql-query-editor');
    await editor.locator('.view-lines').waitFor({ state: 'visible', timeout: 30_000 });
    await replaceText(graphiql, editor, 'query WhoAmI { viewer { name via tenant } }');
    await expect
      .poll(async () => (await textOf(editor)).replace(/\s+/g, ' '), { timeout: 10_000 })
      .toContain('query WhoAmI { viewer { name via tenant } }');
    // GraphiQL takes the operation name from the editor after a debounce: run before it
    // has, and it asks for the previous document's operation
    await expect
      .poll(() => textOf(graphiql.locator('.graphiql-tab-active')), { timeout: 10_000 })
      .toContain('WhoAmI');
    await graphiql.waitForTimeout(500);
    const answered = graphiql.waitForResponse(
      (response) =>
        new URL(response.url()).pathname === '/graphql' &&
        (response.request().postData() ?? response.url()).includes('WhoAmI'),
      { timeout: 30_000 },
    );
    await graphiql.locator('.graphiql-execute-button').click();
    expect((await answered).status()).toBe(200);
    const panel = graphiql.locator('.graphiql-response');
    await expect.poll(() => textOf(panel), { timeout: 30_000 }).toContain(developer.username);
    const shown = await textOf(panel);
    expect(shown).toContain('"SESSION"');
    expect(shown).toContain('"vsphere.local"');
    expect(shown).not.toContain('"errors"');
    await graphiql.close();
  }, 90_000);

  it('signs out: back to the sign-in form, the cookie gone, nothing of the catalog left in the page', async () => {
    await page!.locator('#sign-out').click();
    await page!.locator('#sign-in-form').waitFor({ state: 'visible', timeout: 30_000 });
    expect(await signInMessage(page!)).toBe('You have signed out.');
    expect(await page!.locator('#catalog').isHidden()).toBe(true);
    expect(await page!.locator('nav').isHidden()).toBe(true);
    expect(await page!.locator('.card').count()).toBe(0);
    expect(await page!.locator('#request-form').count()).toBe(0);
    expect(await page!.locator('#account').innerText()).toBe('');
    expect(await sessionCookie()).toBeUndefined();
    // a reload asks again, and there is no session
    await openPortal(page!, server!.url);
    expect(await page!.locator('.card').count()).toBe(0);
  }, 60_000);

  it('signs the database administrator in: their list holds the restricted item', async () => {
    await signIn(page!, dba);
    expect(await page!.locator('#viewer-name').innerText()).toBe(dba.username);
    await expect.poll(() => itemNames(page!), { timeout: 30_000 }).toContain(restricted);
    expect(await page!.locator('#catalog-items').innerText()).toContain(restricted);
    await shoot('03-dba');
  }, 60_000);

  it('goes back to the sign-in form, saying so, when vRA refuses the user its token (the session ends)', async () => {
    stack!.vra.expireTokensOf(dba.username);
    await page!.locator('nav button[data-tab="catalog"]').click();
    await page!.locator('#sign-in-form').waitFor({ state: 'visible', timeout: 30_000 });
    expect(await signInMessage(page!)).toBe('Your session has ended: sign in again.');
    expect(await page!.locator('.card').count()).toBe(0);
    expect(await page!.locator('body').innerText()).not.toContain(restricted);
    expect(await page!.locator('#username').inputValue()).toBe(dba.username);
  }, 60_000);

  it('goes back to the sign-in form, saying so, on a 401 once the session has ended elsewhere', async () => {
    await signIn(page!, dba);
    const cookie = await sessionCookie();
    // the session ends at the gateway while the browser still holds its cookie
    const ended = await stack!.gql<{ signOut: boolean }>('mutation { signOut }', undefined, {
      cookie: `gateway_session=${cookie!.value}`,
    });
    expect(ended.data?.signOut).toBe(true);
    const refused = page!.waitForResponse(
      (response) => new URL(response.url()).pathname === '/graphql' && response.status() === 401,
      { timeout: 30_000 },
    );
    await page!.locator('nav button[data-tab="workflows"]').click();
    await refused;
    await page!.locator('#sign-in-form').waitFor({ state: 'visible', timeout: 30_000 });
    expect(await signInMessage(page!)).toBe('Your session has ended: sign in again.');
    expect(await page!.locator('#workflows').isHidden()).toBe(true);
    expect(await page!.locator('#workflow-list').innerText()).toBe('');
    // the 401 cleared the cookie too
    expect(await sessionCookie()).toBeUndefined();
  }, 60_000);

  it('shows RATE_LIMITED after too many failed sign-ins for one user name', async () => {
    const wrong = { username: tester.username, password: 'not-the-password' };
    const alert = page!.locator('#sign-in-message [role=alert]');
    for (let attempt = 1; attempt <= 5; attempt++) {
      await submitSignIn(page!, wrong);
      await expect
        .poll(() => alert.innerText().catch(() => ''), { timeout: 30_000 })
        .toBe('The user name, password or tenant is not accepted by vRA.');
      await page!.locator('#sign-in-message .muted').waitFor({ state: 'detached' });
    }
    const limited = page!.waitForResponse(
      (response) => new URL(response.url()).pathname === '/graphql' && response.status() === 429,
      { timeout: 30_000 },
    );
    // even the right password is refused for the rest of the window
    await submitSignIn(page!, tester);
    await limited;
    await expect
      .poll(() => alert.innerText().catch(() => ''), { timeout: 30_000 })
      .toMatch(/^Too many failed sign-ins: try again in \d+ s\.$/);
    expect(await page!.locator('#catalog').isHidden()).toBe(true);
    expect(await page!.locator('#username').inputValue()).toBe(tester.username);
    await shoot('04-rate-limited');
  }, 90_000);

  it('never put a password in a URL, web storage or the console, and used only the gateway', async () => {
    const urls = [...browser!.requested, page!.url()];
    const storage = await page!.evaluate(() =>
      JSON.stringify(
        [localStorage, sessionStorage].map((store) =>
          Object.keys(store).map((key) => [key, store.getItem(key)]),
        ),
      ),
    );
    for (const password of passwords) {
      expect(urls.filter((url) => url.includes(password))).toEqual([]);
      expect(storage).not.toContain(password);
      expect(consoleLines.filter((line) => line.includes(password))).toEqual([]);
    }
    expect(pageErrors).toEqual([]);
    expect(browser!.blocked).toEqual([]);
    expect(browser!.requested.every((url) => new URL(url).origin === server!.url)).toBe(true);
  });
});

describe.skipIf(missing)(`The portal with SESSION_SCOPES=read${skipped}`, () => {
  let stack: Stack | undefined;
  let server: Awaited<ReturnType<typeof listen>> | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    stack = await startStack({ env: { SESSION_SCOPES: 'read' } });
    server = await listen(stack.gateway);
    browser = await launchBrowser({ width: 1280, height: 900 });
    page = await browser.context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await stack?.close();
  });

  it('lists what the user may see but offers no order button', async () => {
    await openPortal(page!, server!.url);
    await signIn(page!, developer);
    expect(await page!.locator('#viewer-name').innerText()).toBe(developer.username);
    expect(await itemNames(page!)).toContain('CentOS 7 Machine');
    await page!.locator(`[data-item="${centos}"]`).click();
    await page!.locator('#request-form').waitFor({ timeout: 30_000 });
    expect(await page!.locator('#request-form h2').innerText()).toBe('CentOS 7 Machine');
    expect(await page!.locator('#request-form button').count()).toBe(0);
    expect(await page!.locator('[data-order]').count()).toBe(0);
    expect(await page!.locator('#order-not-allowed').innerText()).toBe(
      'You may look at this item but not order it: your account lacks the scope catalog:request.',
    );
    await page!.screenshot({ path: join(shots.pathname, '05-read-only.png'), fullPage: true });
  }, 60_000);

  it('shows a workflow but offers no run button', async () => {
    await page!.locator('nav button[data-tab="workflows"]').click();
    await page!.locator('#workflow-query').fill('Provision Linux');
    await page!.locator('#workflow-search button').click();
    await page!.locator(`[data-workflow="${provisionLinux}"]`).click();
    await page!.locator('#workflow-form').waitFor({ timeout: 30_000 });
    expect(await page!.locator('#workflow-form h2').innerText()).toBe('Provision Linux VM');
    expect(await page!.locator('#workflow-form button[type=submit]').count()).toBe(0);
    expect(await page!.locator('#run-not-allowed').innerText()).toContain(
      'your account lacks the scope workflow:run',
    );
    expect(stack!.vro.executions).toHaveLength(0);
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
