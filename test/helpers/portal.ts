/**
 * What a person does with the reference portal (examples/portal) in the
 * browser of test/helpers/browser.ts, and what its screen shows, whichever
 * vRA the gateway sits on.
 */
import type { Locator, Page } from 'playwright-core';

/** Opens the portal; it shows the sign-in form once it has asked who is calling. */
export async function openPortal(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/portal/`, { waitUntil: 'load' });
  await page.locator('#sign-in-form').waitFor({ state: 'visible', timeout: 30_000 });
}

/** Fills the sign-in form as a person would and sends it. */
export async function submitSignIn(
  page: Page,
  user: { username: string; password: string },
): Promise<void> {
  await page.locator('#username').fill(user.username);
  await page.locator('#password').fill(user.password);
  await page.locator('#sign-in-form button[type=submit]').click();
}

/** Signs in and waits for the catalog of that user. */
export async function signIn(
  page: Page,
  user: { username: string; password: string },
): Promise<void> {
  await submitSignIn(page, user);
  await page.locator('#sign-out').waitFor({ state: 'visible', timeout: 30_000 });
  await page.locator('#catalog-items .card').first().waitFor({ timeout: 30_000 });
}

/** The names of the catalog items the page shows. */
export const itemNames = (page: Page): Promise<string[]> =>
  page.locator('#catalog-items .card strong').allInnerTexts();

/** What the sign-in form says (its alert or notice). */
export const signInMessage = (page: Page): Promise<string> =>
  page.locator('#sign-in-message').innerText();

/** The state badges inside `locator`, in order. */
export const states = (locator: Locator): Promise<Array<string | null>> =>
  locator.locator('[data-state]').evaluateAll(badges);
const badges = (elements: Element[]) => elements.map((e) => e.getAttribute('data-state'));
