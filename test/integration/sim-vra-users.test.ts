import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  databaseAdministratorsGroup,
  developmentGroup,
  qualityGroup,
} from '../../simulators/vra/v7/consumer-seed.ts';
import {
  simulatorUsers,
  startVraSimulator,
  type VraSimulator,
} from '../../simulators/vra/v7/index.ts';
import { vraErrorBody } from '../../simulators/vra/v7/vra-errors.ts';

const consumer = '/catalog-service/api/consumer';
const views = `${consumer}/entitledCatalogItemViews`;
const oracle = 'c7a0e3d2-5b1f-4c8e-9a6d-3f2b1e0d9c04';
const webApp = 'c7a0e3d2-5b1f-4c8e-9a6d-3f2b1e0d9c02';
const json = { accept: 'application/json', 'content-type': 'application/json' };

function userNamed(username: string) {
  const user = simulatorUsers.find((u) => u.username === username);
  if (user === undefined) throw new Error(`no default user ${username}`);
  return user;
}
const dba = userNamed('dba@vsphere.local');
const developer = userNamed('developer@vsphere.local');
const tester = userNamed('tester@vsphere.local');

async function call(sim: VraSimulator, path: string, token: string, init: RequestInit = {}) {
  const response = await fetch(new URL(path, sim.url), {
    ...init,
    headers: { ...json, authorization: `Bearer ${token}` },
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

async function signIn(sim: VraSimulator, user: { username: string; password: string }) {
  const response = await fetch(new URL('/identity/api/tokens', sim.url), {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ username: user.username, password: user.password, tenant: sim.tenant }),
  });
  expect(response.status, user.username).toBe(200);
  return ((await response.json()) as { id: string }).id;
}

interface View {
  catalogItemId: string;
  name: string;
  entitledOrganizations: Array<{ subtenantLabel: string }>;
}

async function viewsOf(sim: VraSimulator, token: string): Promise<View[]> {
  const answer = await call(sim, `${views}?limit=100`, token);
  expect(answer.status).toBe(200);
  return (answer.body as { content: View[] }).content;
}

const names = (list: View[]): string[] => list.map((view) => view.name);
const groupsOf = (list: View[], id: string): string[] =>
  (list.find((view) => view.catalogItemId === id)?.entitledOrganizations ?? []).map(
    (org) => org.subtenantLabel,
  );

describe('the vRA simulator with its default users', () => {
  let sim: VraSimulator;
  beforeAll(async () => {
    sim = await startVraSimulator();
  });
  afterAll(async () => {
    await sim.close();
  });

  it('names three users of vsphere.local with their passwords and business groups', () => {
    expect(simulatorUsers.map((u) => [u.username, u.password, u.groups])).toEqual([
      ['dba@vsphere.local', 'dba-simulator', [developmentGroup.id, databaseAdministratorsGroup.id]],
      ['developer@vsphere.local', 'developer-simulator', [developmentGroup.id]],
      ['tester@vsphere.local', 'tester-simulator', [qualityGroup.id]],
    ]);
  });

  it('lets each user sign in and lists to each exactly the items of their business groups', async () => {
    const seen = async (user: { username: string; password: string }) =>
      names(await viewsOf(sim, await signIn(sim, user)));
    expect(await seen(sim)).toEqual([
      'CentOS 7 Machine',
      'Three-tier Web Application',
      'Windows Server 2019',
      'Oracle Database (restricted)',
    ]);
    expect(await seen(dba)).toEqual([
      'CentOS 7 Machine',
      'Three-tier Web Application',
      'Oracle Database (restricted)',
    ]);
    expect(await seen(developer)).toEqual(['CentOS 7 Machine', 'Three-tier Web Application']);
    expect(await seen(tester)).toEqual(['Three-tier Web Application', 'Windows Server 2019']);
  });

  it("names in each view only the caller's business groups among the item's", async () => {
    const service = await viewsOf(sim, await signIn(sim, sim));
    expect(groupsOf(service, webApp)).toEqual(['Development', 'Quality Engineering']);
    expect(groupsOf(service, oracle)).toEqual(['Database Administrators']);
    const dbaViews = await viewsOf(sim, await signIn(sim, dba));
    expect(groupsOf(dbaViews, webApp)).toEqual(['Development']);
    expect(groupsOf(dbaViews, oracle)).toEqual(['Database Administrators']);
    expect(groupsOf(await viewsOf(sim, await signIn(sim, developer)), webApp)).toEqual([
      'Development',
    ]);
    expect(groupsOf(await viewsOf(sim, await signIn(sim, tester)), webApp)).toEqual([
      'Quality Engineering',
    ]);
  });

  it("refuses a developer's template and request for the Oracle item with 403, and records no request", async () => {
    const path = `${consumer}/entitledCatalogItems/${oracle}/requests`;
    const template = (await call(sim, `${path}/template`, await signIn(sim, dba))).body;
    expect(template.businessGroupId).toBe(databaseAdministratorsGroup.id);
    const token = await signIn(sim, developer);
    const refusedTemplate = await call(sim, `${path}/template`, token);
    expect(refusedTemplate.status).toBe(403);
    expect(refusedTemplate.body.errors[0].code).toBe(20117);
    const body = JSON.stringify({ ...template, requestedFor: developer.username });
    const refused = await call(sim, path, token, { method: 'POST', body });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].code).toBe(20117);
    expect(sim.consumer.requests(developer.username)).toEqual([]);
  });

  it("hands a tester the template in Quality Engineering and refuses a request in Development, another user's group", async () => {
    const path = `${consumer}/entitledCatalogItems/${webApp}/requests`;
    const token = await signIn(sim, tester);
    const template = (await call(sim, `${path}/template`, token)).body;
    expect(template.businessGroupId).toBe(qualityGroup.id);
    const inDevelopment = JSON.stringify({ ...template, businessGroupId: developmentGroup.id });
    const refused = await call(sim, path, token, { method: 'POST', body: inDevelopment });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].code).toBe(10101);
    const accepted = await call(sim, path, token, {
      method: 'POST',
      body: JSON.stringify(template),
    });
    expect(accepted.status).toBe(201);
    expect(accepted.body.organization.subtenantLabel).toBe('Quality Engineering');
  });

  it('keeps the requests of each user to that user', async () => {
    const path = `${consumer}/entitledCatalogItems/${oracle}/requests`;
    const dbaToken = await signIn(sim, dba);
    const template = (await call(sim, `${path}/template`, dbaToken)).body;
    const created = await call(sim, path, dbaToken, {
      method: 'POST',
      body: JSON.stringify(template),
    });
    expect(created.status).toBe(201);
    const mine = await call(sim, `${consumer}/requests/${created.body.id}`, dbaToken);
    expect(mine.status).toBe(200);
    const developerToken = await signIn(sim, developer);
    expect(
      (await call(sim, `${consumer}/requests/${created.body.id}`, developerToken)).status,
    ).toBe(404);
    const listed = await call(sim, `${consumer}/requests`, developerToken);
    const ids = (listed.body as { content: Array<{ id: string }> }).content.map((r) => r.id);
    expect(ids).not.toContain(created.body.id);
  });

  it("revokes a token on DELETE (204), after which a catalog call answers 401 with vRA's error body", async () => {
    const token = await signIn(sim, developer);
    expect((await call(sim, views, token)).status).toBe(200);
    const tokenPath = `/identity/api/tokens/${encodeURIComponent(token)}`;
    const deleted = await fetch(new URL(tokenPath, sim.url), { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect((await fetch(new URL(tokenPath, sim.url), { method: 'HEAD' })).status).toBe(404);
    const after = await call(sim, views, token);
    expect(after.status).toBe(401);
    expect(after.body).toEqual(
      vraErrorBody(
        90135,
        'Unable to authenticate: the bearer token is missing, unknown or expired.',
      ),
    );
    const unknown = await fetch(new URL('/identity/api/tokens/not-a-token', sim.url), {
      method: 'DELETE',
    });
    expect(unknown.status).toBe(404);
  });

  it("expireTokensOf expires that user's tokens and no other user's", async () => {
    const testerTokens = [await signIn(sim, tester), await signIn(sim, tester)];
    const dbaToken = await signIn(sim, dba);
    const serviceToken = await signIn(sim, sim);
    sim.expireTokensOf(tester.username);
    for (const token of testerTokens) {
      const answer = await call(sim, views, token);
      expect(answer.status).toBe(401);
      expect(answer.body.errors[0].code).toBe(90135);
    }
    expect((await call(sim, views, dbaToken)).status).toBe(200);
    expect((await call(sim, views, serviceToken)).status).toBe(200);
    expect((await call(sim, views, await signIn(sim, tester))).status).toBe(200);
  });
});

describe('the vRA simulator given its users', () => {
  const jane = { username: 'jane@vsphere.local', password: 'jane-secret' };
  const ada = {
    username: 'ada@vsphere.local',
    password: 'ada-secret',
    groups: [databaseAdministratorsGroup.id],
  };
  let sim: VraSimulator;
  beforeAll(async () => {
    sim = await startVraSimulator({ users: [jane, ada] });
  });
  afterAll(async () => {
    await sim.close();
  });

  it("lets a user given without groups see every group's items but not the item restricted to named users", async () => {
    const seen = await viewsOf(sim, await signIn(sim, jane));
    expect(names(seen)).toEqual([
      'CentOS 7 Machine',
      'Three-tier Web Application',
      'Windows Server 2019',
    ]);
    expect(groupsOf(seen, webApp)).toEqual(['Development', 'Quality Engineering']);
  });

  it("entitles a user given in the Database Administrators group to the Oracle item, and to that group's items only", async () => {
    expect(names(await viewsOf(sim, await signIn(sim, ada)))).toEqual([
      'Oracle Database (restricted)',
    ]);
  });

  it('replaces the default users, while the service account still signs in and sees everything', async () => {
    const response = await fetch(new URL('/identity/api/tokens', sim.url), {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ username: dba.username, password: dba.password, tenant: sim.tenant }),
    });
    expect(response.status).toBe(401);
    expect(await viewsOf(sim, await signIn(sim, sim))).toHaveLength(4);
  });
});
