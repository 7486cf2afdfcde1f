import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';

/** Debian's Chromium, driven by playwright-core (no browser download). */
export const chromiumPath = '/usr/bin/chromium';

/** True when the browser tests cannot run here; says so once, naming the file. */
export function browserMissing(file: string): boolean {
  const missing = !existsSync(chromiumPath);
  if (missing) {
    console.warn(
      `${file} is SKIPPED: ${chromiumPath} is absent (install it: apt-get install -y chromium; .ci/run does).`,
    );
  }
  return missing;
}

/** What an editor shows (Monaco renders spaces as no-break spaces). */
export const textOf = async (locator: Locator): Promise<string> =>
  (await locator.innerText()).replace(/\u00a0/g, ' ');

export const loopbackHosts = new Set(['127.0.0.1', 'localhost', '[::1]']);

export interface Browser {
  context: BrowserContext;
  /** Every URL the pages requested. */
  requested: string[];
  /** Requests that would have left loopback (aborted). */
  blocked: string[];
  close(): Promise<void>;
}

/** A headless Chromium with a fresh profile that can reach loopback only. */
export async function launchBrowser(
  viewport: { width: number; height: number } = { width: 1400, height: 2400 },
): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'gateway-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
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
    viewport,
  });
  const requested: string[] = [];
  const blocked: string[] = [];
  context.on('request', (request) => requested.push(request.url()));
  await context.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    if (url.protocol === 'data:' || url.protocol === 'blob:' || loopbackHosts.has(url.hostname)) {
      await route.continue();
    } else {
      blocked.push(url.href);
      await route.abort('blockedbyclient');
    }
  });
  return {
    context,
    requested,
    blocked,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Replaces what a Monaco editor holds, as a user pasting would. */
export async function replaceText(page: Page, editor: Locator, text: string): Promise<void> {
  await editor.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}
