import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserMissing, chromiumPath, launchBrowser, type Browser } from '../helpers/browser.ts';
import { states } from '../helpers/portal.ts';
import { listen, startStack, type Stack } from '../helpers/stack.ts';

const missing = browserMissing('test/browser/portal.test.ts');
/** Screenshots of each screen, for a person to look at (gitignored). */
const shots = new URL('../../test-results/portal/', import.meta.url);
const centos = 'c7a0e3d2-5b1f-4c8e-9a6d-3f2b1e0d9c01';
const provisionLinux = 'a9488d99-0bbb-4599-91ce-5dd2b45ed1f0';
const waitForSignal = 'a28defe3-9bf0-4273-9247-6f57a5e5a5ab';
/** A default user of the vRA simulator, entitled to CentOS 7 Machine (simulators/vra/users.ts). */
const developer = { username: 'developer@vsphere.local', password: 'developer-simulator' };

describe.skipIf(missing)(
  `The self-service portal in a real browser${missing ? ` (skipped: ${chromiumPath} is absent)` : ''}`,
  () => {
    let stack: Stack | undefined;
    let server: Awaited<ReturnType<typeof listen>> | undefined;
    let browser: Browser | undefined;
    let page: Page | undefined;
    const pageErrors: string[] = [];
    const graphqlHeaders: Array<Record<string, string>> = [];

    const shoot = (name: string) =>
      page!.screenshot({ path: join(shots.pathname, `${name}.png`), fullPage: true });

    beforeAll(async () => {
      mkdirSync(shots, { recursive: true });
      // a request stays in each state long enough for a list read again to show it
      stack = await startStack({ vro: { stepMs: 400 }, vra: { requestStepMs: 500 } });
      expect(stack.config.portal).toBe(true);
      server = await listen(stack.gateway);
      browser = await launchBrowser({ width: 1280, height: 900 });
      browser.context.on('request', (request) => {
        if (new URL(request.url()).pathname === '/graphql') graphqlHeaders.push(request.headers());
      });
      page = await browser.context.newPage();
      page.on('pageerror', (error) => pageErrors.push(error.message));
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      await server?.close();
      await stack?.close();
    });

    it('asks who is calling, shows the sign-in form, and signs the developer in', async () => {
      await page!.goto(`${server!.url}/portal`, { waitUntil: 'load' });
      expect(new URL(page!.url()).pathname).toBe('/portal/');
      const form = page!.locator('#sign-in-form');
      await form.waitFor({ state: 'visible', timeout: 30_000 });
      expect(await page!.locator('#catalog').isHidden()).toBe(true);
      await page!.locator('#username').fill(developer.username);
      await page!.locator('#password').fill(developer.password);
      expect(await page!.locator('#tenant').inputValue()).toBe('vsphere.local');
      await form.locator('button[type=submit]').click();
      await page!.locator('#sign-out').waitFor({ timeout: 30_000 });
      expect(await page!.locator('#account').innerText()).toContain(developer.username);
      expect(await form.isHidden()).toBe(true);
    }, 60_000);

    it("lists the developer's entitled catalog items, served entirely by the gateway, and no request yet", async () => {
      const card = page!.locator(`[data-item="${centos}"]`);
      await card.waitFor({ timeout: 30_000 });
      expect(await card.innerText()).toContain('CentOS 7 Machine');
      expect(await card.innerText()).toContain('A CentOS 7 virtual machine on vSphere');
      // the developer's entitled items (simulators/vra/v7/consumer-seed.ts), not the restricted one
      expect(await page!.locator('#catalog-items .card strong').allInnerTexts()).toEqual([
        'CentOS 7 Machine',
        'Three-tier Web Application',
      ]);
      const requests = page!.locator('#catalog-requests');
      await expect.poll(() => requests.innerText(), { timeout: 30_000 }).toContain('None yet.');
      expect(await requests.locator('h3').innerText()).toBe('Your requests');
      expect(await requests.locator('li').count()).toBe(0);
      await shoot('01-catalog');
    }, 60_000);

    it('draws the request form from the template, submits it and shows the request advancing to its final state', async () => {
      await page!.locator(`[data-item="${centos}"]`).click();
      const cpu = page!.locator('#form-vSphere_Machine_1-cpu');
      await cpu.waitFor({ timeout: 30_000 });
      expect(await page!.locator('#request-form h2').innerText()).toBe('CentOS 7 Machine');
      expect(await cpu.inputValue()).toBe('1');
      expect(await page!.locator('#business-group option').allInnerTexts()).toEqual([
        'Development',
      ]);
      await cpu.fill('2');
      await page!.locator('#request-description').fill('Portal test machine');
      await shoot('02-request-form');
      // every state "Your requests" shows for a request, as the page draws them
      await page!.evaluate(() => {
        const seen: string[] = [];
        (window as unknown as { listed: string[] }).listed = seen;
        const list = document.getElementById('catalog-requests')!;
        new MutationObserver(() => {
          for (const item of list.querySelectorAll('li[data-request-id]')) {
            const state = item.querySelector('[data-state]')?.getAttribute('data-state');
            seen.push(`${item.getAttribute('data-request-id')} ${state}`);
          }
        }).observe(list, { childList: true, subtree: true });
      });
      await page!.locator('#request-form button[type=submit]').click();
      const final = page!.locator('#catalog-progress [data-state="SUCCESSFUL"]').first();
      await final.waitFor({ timeout: 30_000 });
      // the states came one by one over the subscription, in order
      const timeline = await states(page!.locator('#catalog-progress .timeline'));
      expect(timeline.length).toBeGreaterThan(1);
      expect(timeline[0]).toBe('SUBMITTED');
      expect(timeline.at(-1)).toBe('SUCCESSFUL');
      expect(
        ['SUBMITTED', 'IN_PROGRESS', 'SUCCESSFUL'].filter((s) => timeline.includes(s)),
      ).toEqual([...new Set(timeline)]);
      const id = (await page!.locator('#catalog-progress .timeline').getAttribute('data-request'))!;
      expect(await page!.locator('#catalog-progress p').first().innerText()).toMatch(
        /^Request #\d+ SUCCESSFUL \(final\)$/,
      );
      const posted = stack!.vra.requests.filter(
        (request) =>
          request.method === 'POST' &&
          request.path.endsWith(`/entitledCatalogItems/${centos}/requests`),
      );
      expect(posted).toHaveLength(1);
      const sent = JSON.parse(posted[0]!.body.toString('utf8'));
      expect(sent.description).toBe('Portal test machine');
      expect(sent.data.vSphere_Machine_1.data.cpu).toBe(2);
      expect(sent.data.vSphere_Machine_1.data.memory).toBe(2048);
      // sent with the developer's own vRA token, not the gateway's service account
      const bearer = /^Bearer (.+)$/.exec(posted[0]!.headers['authorization'] ?? '')?.[1] ?? '';
      expect(stack!.vra.tokenUser(bearer)).toBe(developer.username);
      // "Your requests" showed the request while it ran, then at its end: no reload needed
      const row = page!.locator(`#catalog-requests li[data-request-id="${id}"]`);
      await expect.poll(() => states(row), { timeout: 30_000 }).toEqual(['SUCCESSFUL']);
      expect(await row.innerText()).toContain('Portal test machine');
      expect(await page!.locator('#catalog-requests li').count()).toBe(1);
      expect(await page!.locator('#request-count').innerText()).toBe('1 request');
      const listed = await page!.evaluate(() => (window as unknown as { listed: string[] }).listed);
      const shownStates = [...new Set(listed.filter((l) => l.startsWith(`${id} `)))];
      expect(shownStates.at(-1)).toBe(`${id} SUCCESSFUL`);
      expect(shownStates.length).toBeGreaterThan(1);
    }, 60_000);

    it('then shows the machine with its actions, and runs one to its end', async () => {
      const machine = page!
        .locator('.resource')
        .filter({ hasText: 'Infrastructure.Virtual' })
        .first();
      await machine.waitFor({ timeout: 30_000 });
      expect(await page!.locator('#catalog-resources h3').innerText()).toBe('What was built');
      // the deployment and its machine
      expect(await page!.locator('.resource').count()).toBe(2);
      const machineStatus = () => machine.locator('dt:text-is("MachineStatus") + dd').innerText();
      const actions = () => machine.locator('[data-action]').allInnerTexts();
      expect(await machineStatus()).toBe('On');
      expect(await machine.locator('dt:text-is("MachineCPU") + dd').innerText()).toBe('2');
      expect(await actions()).toEqual(['Destroy', 'Power Off', 'Reboot', 'Shutdown']);
      await shoot('03-request-done');
      await machine.locator('[data-action="Power Off"]').click();
      const progress = machine.locator('.action-progress');
      await progress.locator('[data-state="SUCCESSFUL"]').first().waitFor({ timeout: 30_000 });
      // once the action has ended the resources are read again: the machine is off and
      // offers to be powered on; the action's progress stays on its card
      await expect.poll(machineStatus, { timeout: 30_000 }).toBe('Off');
      expect(await actions()).toEqual(['Destroy', 'Power On']);
      expect((await states(progress.locator('.timeline'))).at(-1)).toBe('SUCCESSFUL');
      // and "Your requests" holds the action's request, newest first
      const rows = page!.locator('#catalog-requests li');
      await expect.poll(() => rows.count(), { timeout: 30_000 }).toBe(2);
      await expect.poll(() => states(rows.first()), { timeout: 30_000 }).toEqual(['SUCCESSFUL']);
      expect(await rows.first().innerText()).toContain('Action on a resource');
      expect(await rows.nth(1).innerText()).toContain('Portal test machine');
      expect(await page!.locator('#request-count').innerText()).toBe('2 requests');
      await shoot('04-resource-action');
      const actionRequests = stack!.vra.requests.filter(
        (request) =>
          request.method === 'POST' &&
          /\/resources\/[^/]+\/actions\/[^/]+\/requests$/.test(request.path),
      );
      expect(actionRequests).toHaveLength(1);
      expect(actionRequests[0]!.path).toContain('/actions/8f664760-5d2d-4e97-8ae3-7fa515144f72/');
    }, 60_000);

    it('draws a workflow form with its steps, groups, choices and defaults, runs it and streams its state and log', async () => {
      await page!.locator('nav button[data-tab="workflows"]').click();
      await page!.locator('#workflow-query').fill('Provision Linux');
      await page!.locator('#workflow-search button').click();
      const card = page!.locator(`[data-workflow="${provisionLinux}"]`);
      await card.waitFor({ timeout: 30_000 });
      expect(await page!.locator('#workflow-list .card').count()).toBe(1);
      expect(await card.locator('strong').innerText()).toBe('Provision Linux VM');
      expect(await card.locator('span').innerText()).toBe('Provisioning');
      await card.click();
      const hostname = page!.locator('#field-hostname');
      await hostname.waitFor({ timeout: 30_000 });
      expect(await page!.locator('#workflow-form h2').innerText()).toBe('Provision Linux VM');
      // one run of the seeded history
      const runs = page!.locator('#recent-runs li');
      expect(await page!.locator('#recent-runs h3').innerText()).toBe('Recent runs');
      expect(await page!.locator('#run-count').innerText()).toBe('1 run');
      expect(await states(page!.locator('#recent-runs'))).toEqual(['COMPLETED']);
      const legends = await page!.locator('#workflow-form legend').allInnerTexts();
      expect(legends).toEqual(['Machine', 'Placement']);
      expect(await page!.locator('#workflow-form h4').allInnerTexts()).toEqual([
        'Identity',
        'Size',
      ]);
      expect(await page!.locator('#field-environment option').allInnerTexts()).toEqual([
        'dev',
        'test',
        'prod',
      ]);
      expect(await page!.locator('#field-cpu').inputValue()).toBe('2');
      // a hidden field is not drawn
      expect(await page!.locator('#field-tags').count()).toBe(0);
      await shoot('05-workflow-form');
      // a required field left empty is refused before anything is sent
      const runsBefore = stack!.vro.executions.length;
      await page!.locator('#workflow-form button[type=submit]').click();
      await page!.locator('#workflow-form .error').waitFor();
      expect(await page!.locator('#workflow-form .error').innerText()).toContain(
        'Host name is required',
      );
      expect(stack!.vro.executions.length).toBe(runsBefore);

      await hostname.fill('web-42');
      await page!.locator('#field-environment').selectOption({ label: 'test' });
      await page!.locator('#workflow-form button[type=submit]').click();
      await page!.locator('#workflow-run [data-state="RUNNING"]').waitFor({ timeout: 30_000 });
      const executionId = await page!
        .locator('#workflow-run [data-execution]')
        .getAttribute('data-execution');
      // the new run heads "Recent runs" while it runs
      await expect
        .poll(() => runs.first().getAttribute('data-execution-id'), { timeout: 30_000 })
        .toBe(executionId);
      expect(await page!.locator('#run-count').innerText()).toBe('2 runs');
      await page!.locator('#workflow-run [data-state="COMPLETED"]').waitFor({ timeout: 30_000 });
      expect(await page!.locator('#workflow-run .run-state').innerText()).toBe(
        `Run ${executionId} COMPLETED`,
      );
      // and shows its end there too
      await expect
        .poll(() => states(page!.locator('#recent-runs')), { timeout: 30_000 })
        .toEqual(['COMPLETED', 'COMPLETED']);
      expect(await page!.locator('#cancel-run').count()).toBe(0);
      await expect
        .poll(() => page!.locator('#workflow-run .logs').innerText(), { timeout: 10_000 })
        .toContain('has completed');
      expect(await page!.locator('#workflow-run .outputs').innerText()).toContain(
        'web-42.corp.local',
      );
      await shoot('06-workflow-run');
      const run = stack!.vro.executions.at(-1)!;
      expect(run.workflowId).toBe(provisionLinux);
      const byName = Object.fromEntries(run.parameters.map((p) => [p.name, p.value]));
      expect(byName['hostname']).toEqual({ string: { value: 'web-42' } });
      expect(byName['environment']).toEqual({ string: { value: 'test' } });
      expect(byName['cpu']).toEqual({ number: { value: 2 } });
    }, 60_000);

    it('cancels a run that is still going and shows it CANCELED', async () => {
      await page!.locator('#workflow-query').fill('Wait for signal');
      await page!.locator('#workflow-search button').click();
      await page!.locator(`[data-workflow="${waitForSignal}"]`).click();
      await page!.locator('#field-timeoutMinutes').waitFor({ timeout: 30_000 });
      expect(await page!.locator('#recent-runs').innerText()).toContain('None yet.');
      expect(await page!.locator('#recent-runs li').count()).toBe(0);
      await page!.locator('#workflow-form button[type=submit]').click();
      const cancel = page!.locator('#cancel-run');
      await cancel.waitFor({ timeout: 30_000 });
      const row = page!.locator('#recent-runs li');
      await expect.poll(() => row.count(), { timeout: 30_000 }).toBe(1);
      expect(await page!.locator('#run-count').innerText()).toBe('1 run');
      const canceled = page!.waitForResponse(
        (response) =>
          new URL(response.url()).pathname === '/graphql' &&
          (response.request().postData() ?? '').includes('PortalCancelRun'),
      );
      await cancel.click();
      expect((await canceled).status()).toBe(200);
      const answeredAt = Date.now();
      await page!.locator('#workflow-run [data-state="CANCELED"]').waitFor({ timeout: 30_000 });
      // the subscription's CANCELED (which reads the log again) comes within a second or so,
      // not at the poller's next backed-off poll
      await expect
        .poll(() => page!.locator('#workflow-run .logs').innerText(), { timeout: 2_000 })
        .toContain('has been canceled');
      console.info(
        `the portal showed the canceled run's log ${Date.now() - answeredAt} ms after the answer`,
      );
      expect(await page!.locator('#workflow-run .outputs').innerText()).toBe('');
      expect(await cancel.count()).toBe(0);
      // "Recent runs" shows the run canceled
      await expect.poll(() => states(row), { timeout: 10_000 }).toEqual(['CANCELED']);
      expect(await page!.locator('#run-count').innerText()).toBe('1 run');
      await shoot('07-workflow-canceled');
      const deletes = stack!.vro.requests.filter((request) => request.method === 'DELETE');
      expect(deletes).toHaveLength(1);
      expect(deletes[0]!.path).toMatch(
        new RegExp(`/workflows/${waitForSignal}/executions/[0-9a-f]+/state$`),
      );
    }, 60_000);

    it('used only the gateway: no request left loopback, no script error, the CSRF header on every operation', () => {
      expect(pageErrors).toEqual([]);
      expect(browser!.blocked).toEqual([]);
      expect(browser!.requested.every((url) => new URL(url).origin === server!.url)).toBe(true);
      expect(graphqlHeaders.length).toBeGreaterThan(5);
      for (const headers of graphqlHeaders) expect(headers['x-graphql-csrf']).toBe('1');
    });
  },
);
