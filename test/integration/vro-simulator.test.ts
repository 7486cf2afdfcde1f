import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startVroSimulator, type VroSimulator } from '../../simulators/vro/index.ts';

const samplePackage = readFileSync(new URL('../fixtures/vro/sample.package', import.meta.url));
const requestComponent = '6e04a460-4a45-4e16-9603-db2922c24462';
const echo = 'aefcfad8-efc8-4849-b3aa-7efe4458a885';
const alwaysFails = '29a3b2e9-5d65-4441-9588-42dea2bc372f';

let sim: VroSimulator;
let auth: string;

beforeAll(async () => {
  sim = await startVroSimulator({ manualClock: true, stepMs: 1000 });
  auth = `Basic ${Buffer.from(`${sim.username}:${sim.password}`).toString('base64')}`;
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  sim.switches.omitLocation = false;
});

function call(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('authorization', auth);
  if (!headers.has('accept')) headers.set('accept', 'application/json');
  return fetch(`${sim.url.href}${path}`, { ...init, headers });
}

interface QueryBody {
  link: Array<{ attributes: Array<{ name: string; value: string }>; href: string; rel: string }>;
  total: number;
}

async function query(conditions: string, extra = ''): Promise<{ status: number; body: QueryBody }> {
  const response = await call(`/workflows?conditions=${encodeURIComponent(conditions)}${extra}`);
  const body = (response.status === 200 ? await response.json() : null) as QueryBody;
  return { status: response.status, body };
}

const attribute = (link: QueryBody['link'][number], name: string): string =>
  link.attributes.find((a) => a.name === name)?.value ?? '';

const names = (body: QueryBody): string[] => body.link.map((link) => attribute(link, 'name'));

async function run(workflowId: string, parameters: unknown[]): Promise<Response> {
  return call(`/workflows/${encodeURIComponent(workflowId)}/executions/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ parameters }),
  });
}

function packageForm(bytes: Buffer, part = 'file'): FormData {
  const form = new FormData();
  form.append(part, new File([new Uint8Array(bytes)], 'net.powervro.tests.package'));
  return form;
}

describe('the vRO simulator', () => {
  it('answers the API root without credentials and everything else only with them', async () => {
    expect((await fetch(sim.url.href)).status).toBe(200);
    expect((await fetch(`${sim.url.href}/`)).status).toBe(200);
    const anonymous = await fetch(`${sim.url.href}/workflows`, {
      headers: { accept: 'application/json' },
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toContain('Basic');
    const wrong = await fetch(`${sim.url.href}/about`, {
      headers: { authorization: `Basic ${Buffer.from('vcoadmin:nope').toString('base64')}` },
    });
    expect(wrong.status).toBe(401);
    expect((await fetch(`${sim.url.href}/packages`, { method: 'POST' })).status).toBe(401);
    expect((await call('/about')).status).toBe(200);
  });

  it('seeds more than fifty workflows in several categories, with UUIDs and long built-in ids', async () => {
    const { body } = await query('type=Workflow');
    expect(body.total).toBeGreaterThanOrEqual(50);
    const categories = new Set(body.link.map((link) => attribute(link, 'categoryName')));
    expect(categories.size).toBeGreaterThanOrEqual(8);
    const ids = body.link.map((link) => attribute(link, 'id'));
    expect(
      ids.some((id) =>
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id),
      ),
    ).toBe(true);
    expect(ids.some((id) => /^BD8080[0-9A-Fa-f]{40,}$/.test(id))).toBe(true);
    expect(ids).toContain('com.vmware.library.vc.vm.cloneVM');
  });

  it('matches = exactly and ~ as contains, values case-insensitively, comma as AND', async () => {
    expect(names((await query('name=request component')).body)).toEqual(['Request Component']);
    expect(names((await query('name~SNAPSHOT,categoryName=snapshot')).body)).toEqual([
      'Create a snapshot',
      'Remove all snapshots',
      'Remove excess snapshots',
      'Remove snapshots older than a date',
      'Revert to current snapshot',
      'Revert to snapshot',
      'Snapshot VMs before patching',
    ]);
    expect((await query('name~snapshot,categoryName=Networking')).body).toEqual({
      link: [],
      total: 0,
    });
  });

  it('refuses a wrongly cased or unknown field and a condition without operator with 400', async () => {
    expect((await query('categoryname=Snapshot')).status).toBe(400);
    expect((await query('Name=Revert to snapshot')).status).toBe(400);
    expect((await query('name')).status).toBe(400);
  });

  it('pages with maxResult and startIndex, total counting every match', async () => {
    const first = await query('categoryName=Snapshot', '&maxResult=3&startIndex=0');
    const second = await query('categoryName=Snapshot', '&maxResult=3&startIndex=3');
    expect(first.body.total).toBe(7);
    expect(names(first.body)).toHaveLength(3);
    expect(names(second.body)).toHaveLength(3);
    expect(names(second.body)).not.toContain(names(first.body)[2]);
    expect((await query('categoryName=Snapshot', '&maxResult=0')).status).toBe(400);
    expect((await query('categoryName=Snapshot', '&startIndex=-1')).status).toBe(400);
  });

  it('answers the workflow detail with hyphenated keys, and 404 for an unknown id', async () => {
    const response = await call(`/workflows/${requestComponent}/`);
    const detail = await response.json();
    expect(detail['customized-icon']).toBe(false);
    expect(detail['input-parameters']).toHaveLength(13);
    expect(detail['output-parameters'][1]).toEqual({ name: 'requestNumber', type: 'number' });
    expect((await call('/workflows/00000000-0000-4000-8000-000000000000/')).status).toBe(404);
  });

  it('answers JSON only to a client that asks for it', async () => {
    const response = await fetch(`${sim.url.href}/workflows`, { headers: { authorization: auth } });
    expect(response.status).toBe(406);
  });

  it('starts a run with 202, no body and a Location ending in the execution id', async () => {
    const response = await run(requestComponent, [
      { name: 'coreCount', type: 'string', scope: 'local', value: { string: { value: '2' } } },
    ]);
    expect(response.status).toBe(202);
    expect(await response.text()).toBe('');
    const location = response.headers.get('location') ?? '';
    const id = sim.executions.at(-1)?.id ?? '';
    expect(location).toBe(`${sim.url.href}/workflows/${requestComponent}/executions/${id}/`);
  });

  it.each([
    ['no parameters list', { parameter: [] }],
    [
      'an unknown parameter name',
      { parameters: [{ name: 'cores', type: 'string', value: { string: { value: '2' } } }] },
    ],
    [
      'a number wrapped as string',
      { parameters: [{ name: 'count', type: 'number', value: { string: { value: '2' } } }] },
    ],
    [
      'a string value that is a number',
      { parameters: [{ name: 'text', type: 'string', value: { string: { value: 2 } } }] },
    ],
    [
      'an array of the wrong elements',
      {
        parameters: [
          {
            name: 'names',
            type: 'Array/string',
            value: { array: { elements: [{ number: { value: 1 } }] } },
          },
        ],
      },
    ],
    [
      'an SDK object of another type',
      {
        parameters: [
          {
            name: 'vm',
            type: 'VC:VirtualMachine',
            value: { 'sdk-object': { type: 'VC:Datastore', id: 'ds-1' } },
          },
        ],
      },
    ],
    [
      'a date that is not ISO',
      { parameters: [{ name: 'when', type: 'Date', value: { date: { value: 'tomorrow' } } }] },
    ],
    [
      'a parameter given twice',
      {
        parameters: [
          { name: 'flag', type: 'boolean', value: { boolean: { value: true } } },
          { name: 'flag', type: 'boolean', value: { boolean: { value: false } } },
        ],
      },
    ],
  ])('refuses a run request with %s (400)', async (_case, body) => {
    const response = await call(`/workflows/${echo}/executions/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(400);
  });

  it('moves a run from initializing through running to completed with outputs, on its clock', async () => {
    const response = await run(requestComponent, []);
    const path = new URL(response.headers.get('location') ?? '').pathname.replace('/vco/api', '');
    const read = async () => (await call(path)).text();
    expect(JSON.parse(await read())).toMatchObject({ state: 'initializing' });
    sim.advance(1000);
    expect(JSON.parse(await read())).toMatchObject({ state: 'running' });
    sim.advance(2000);
    const text = await read();
    const done = JSON.parse(text);
    expect(done.state).toBe('completed');
    expect(done['end-date'] - done['start-date']).toBe(3000);
    expect(text).toMatch(/"number":\{"value":\d+\.0\}/);
    expect(done['output-parameters'].map((p: { name: string }) => p.name)).toEqual([
      'result',
      'requestNumber',
      'requestCompletionDetails',
    ]);
    expect(await (await call(`${path}state`)).json()).toEqual({ value: 'completed' });
  });

  it('fails the always-failing workflow and any run given the failure trigger', async () => {
    const failing = await run(alwaysFails, []);
    const triggered = await run(echo, [
      { name: 'text', type: 'string', value: { string: { value: 'simulate-failure' } } },
    ]);
    sim.advance(10_000);
    for (const response of [failing, triggered]) {
      const path = new URL(response.headers.get('location') ?? '').pathname.replace('/vco/api', '');
      const execution = await (await call(path)).json();
      expect(execution.state).toBe('failed');
      expect(execution['content-exception']).toMatch(/^Error in \(Workflow:/);
    }
  });

  it('answers 404 for an execution of another workflow', async () => {
    await run(requestComponent, []);
    const id = sim.executions.at(-1)?.id ?? '';
    expect((await call(`/workflows/${echo}/executions/${id}/`)).status).toBe(404);
  });

  it('imports a package from the part named file with 201, its workflows then listed', async () => {
    const response = await call('/packages?overwrite=false&tagImportMode=DoNotImport', {
      method: 'POST',
      body: packageForm(samplePackage),
    });
    expect(response.status).toBe(201);
    expect(sim.imports.at(-1)).toMatchObject({
      name: 'net.powervro.tests',
      tagImportMode: 'DoNotImport',
    });
    expect(sim.imports.at(-1)?.bytes.equals(samplePackage)).toBe(true);
    const { body } = await query('categoryName=Test');
    expect(names(body)).toEqual(['Test01', 'Test02', 'Test03', 'Test04', 'Test05']);
  });

  it('refuses a package in another part, a non-package and a descriptive tag mode with 400', async () => {
    const post = (path: string, body: FormData) => call(path, { method: 'POST', body });
    expect((await post('/packages', packageForm(samplePackage, 'package'))).status).toBe(400);
    expect((await post('/packages', packageForm(Buffer.from('not a zip')))).status).toBe(400);
    expect(
      (
        await post(
          `/packages?tagImportMode=${encodeURIComponent('do not import tags')}`,
          packageForm(samplePackage),
        )
      ).status,
    ).toBe(400);
    expect((await post('/packages?overwrite=yes', packageForm(samplePackage))).status).toBe(400);
  });

  it('answers 409 for a package older than the server copy, unless overwrite=true', async () => {
    const test01 = '3f92d2dc-a9fa-4323-900b-ef97196184ea';
    sim.putWorkflow({
      id: test01,
      name: 'Test01',
      version: '1.0.0',
      category: 'Test',
      inputs: [],
      outputs: [],
    });
    const conflict = await call('/packages', { method: 'POST', body: packageForm(samplePackage) });
    expect(conflict.status).toBe(409);
    const forced = await call('/packages?overwrite=true', {
      method: 'POST',
      body: packageForm(samplePackage),
    });
    expect(forced.status).toBe(201);
    expect(sim.getWorkflow(test01)?.version).toBe('0.0.0');
  });

  it('drops the Location of a run when switched to', async () => {
    sim.switches.omitLocation = true;
    expect((await run(requestComponent, [])).headers.get('location')).toBeNull();
  });
});
