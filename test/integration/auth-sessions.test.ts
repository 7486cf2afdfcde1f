import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/observability/logger.ts';
import {
  type GraphQLAnswer,
  listen,
  type Stack,
  startStack,
  upstreamCalls,
} from '../helpers/stack.ts';

const developer = { username: 'developer@vsphere.local', password: 'developer-simulator' };
const dba = { username: 'dba@vsphere.local', password: 'dba-simulator' };
const restricted = 'Oracle Database (restricted)';

const signInMutation = `mutation($u: String!, $p: String!, $t: String) {
  signIn(username: $u, password: $p, tenant: $t) { name via tenant scopes expiresAt }
}`;
const itemsQuery = '{ entitledCatalogItems(first: 50) { nodes { name } } }';

let stack: Stack;
const logLines: string[] = [];

beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  });
  stack = await startStack({
    env: { VRO_AUTH_MODE: 'vra-token', LOG_LEVEL: 'debug' },
    logger: createLogger('debug', sink),
    // vRO trusts the tokens vRA issued (as a vRO 7 configured with vRA's directory)
    vro: { bearerUser: (token) => stack.vra.tokenUser(token) },
  });
});
afterAll(() => stack.close());

/** The `gateway_session` value an answer set, if any. */
function sessionCookie(answer: { headers: Headers }): string | undefined {
  const line = answer.headers.getSetCookie().find((c) => c.startsWith('gateway_session='));
  return line === undefined ? undefined : /^gateway_session=([^;]*)/.exec(line)?.[1];
}

async function signIn(
  user: { username: string; password: string },
  headers: Record<string, string> = {},
): Promise<{ answer: GraphQLAnswer<any>; cookie: string | undefined }> {
  const answer = await stack.gql(
    signInMutation,
    { u: user.username, p: user.password, t: 'vsphere.local' },
    headers,
  );
  return { answer, cookie: sessionCookie(answer) };
}

const withCookie = (cookie: string) => ({ cookie: `gateway_session=${cookie}` });

async function itemNames(headers: Record<string, string>): Promise<string[]> {
  const answer = await stack.gql<any>(itemsQuery, {}, headers);
  expect(answer.errors).toBeUndefined();
  return (answer.data.entitledCatalogItems.nodes as Array<{ name: string }>).map((n) => n.name);
}

describe('signing in with vRA credentials', () => {
  it('exchanges them at /identity/api/tokens and answers the viewer with an opaque HttpOnly, SameSite=Strict cookie', async () => {
    const from = stack.vra.requests.length;
    const { answer, cookie } = await signIn(developer);
    expect(answer.errors).toBeUndefined();
    expect(answer.data.signIn).toMatchObject({
      name: developer.username,
      via: 'SESSION',
      tenant: 'vsphere.local',
      scopes: ['catalog:request', 'read', 'workflow:run'],
    });
    expect(Date.parse(answer.data.signIn.expiresAt)).toBeGreaterThan(Date.now());
    const sent = stack.vra.requests.slice(from);
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /identity/api/tokens']);
    expect(JSON.parse(sent[0]?.body.toString('utf8') ?? '')).toEqual({
      username: developer.username,
      password: developer.password,
      tenant: 'vsphere.local',
    });
    const line = answer.headers.getSetCookie().find((c) => c.startsWith('gateway_session='));
    expect(line).toMatch(/; HttpOnly/);
    expect(line).toMatch(/; SameSite=Strict/);
    expect(line).toMatch(/; Path=\//);
    // the gateway listens on loopback by default: no Secure, so plain-HTTP sessions work locally
    expect(line).not.toMatch(/; Secure/);
    expect(cookie).toMatch(/^[A-Za-z0-9_-]{43}$/);
    for (const token of stack.vra.issuedTokens()) expect(line).not.toContain(token);
  });

  it("acts with the user's own vRA token: a developer does not see the DBA-only item, a DBA does", async () => {
    const dev = (await signIn(developer)).cookie ?? '';
    const from = stack.vra.requests.length;
    expect(await itemNames(withCookie(dev))).not.toContain(restricted);
    const sent = stack.vra.requests.slice(from);
    expect(sent).toHaveLength(1);
    const bearer = /^Bearer (.+)$/.exec(sent[0]?.headers.authorization ?? '')?.[1] ?? '';
    expect(stack.vra.tokenUser(bearer)).toBe(developer.username);

    const admin = (await signIn(dba)).cookie ?? '';
    expect(await itemNames(withCookie(admin))).toContain(restricted);
    // the service account (no session, the local default) still sees what it sees
    expect(await itemNames({})).toContain(restricted);
  });

  it("sends the user's vRA token to vRO too when vRO trusts vRA's tokens (VRO_AUTH_MODE=vra-token)", async () => {
    const cookie = (await signIn(developer)).cookie ?? '';
    const from = stack.vro.requests.length;
    const answer = await stack.gql(
      '{ workflows(first: 1) { totalCount } }',
      {},
      withCookie(cookie),
    );
    expect(answer.errors).toBeUndefined();
    const bearer = /^Bearer (.+)$/.exec(stack.vro.requests[from]?.headers.authorization ?? '')?.[1];
    expect(stack.vra.tokenUser(bearer ?? '')).toBe(developer.username);
  });

  it('answers viewer for the session, and null with no credential', async () => {
    const cookie = (await signIn(dba)).cookie ?? '';
    const mine = await stack.gql<any>('{ viewer { name via tenant } }', {}, withCookie(cookie));
    expect(mine.data.viewer).toEqual({
      name: dba.username,
      via: 'SESSION',
      tenant: 'vsphere.local',
    });
    const nobody = await stack.gql<any>('{ viewer { name } }');
    expect(nobody.data).toEqual({ viewer: null });
  });

  it('refuses a field outside the session scopes with FORBIDDEN naming the scope, and calls nothing', async () => {
    const cookie = (await signIn(developer)).cookie ?? '';
    const before = upstreamCalls(stack);
    const answer = await stack.gql(
      'mutation { forceSyncEdge(edgeId: "edge-1") { edgeId } }',
      {},
      withCookie(cookie),
    );
    expect(answer.errors?.[0]?.extensions?.['code']).toBe('FORBIDDEN');
    expect(answer.errors?.[0]?.message).toContain('"network:write"');
    expect(upstreamCalls(stack)).toBe(before);
  });

  it('refuses an over-long password as BAD_USER_INPUT without asking vRA, and writes it down redacted', async () => {
    const password = '\u202e'.repeat(3000);
    const before = stack.vra.requests.length;
    const audited = stack.audit.length;
    const { answer } = await signIn({ username: 'ꦲ𐳠', password });
    expect(answer.status).toBe(200);
    expect(answer.errors?.[0]?.extensions?.['code']).toBe('BAD_USER_INPUT');
    expect(stack.vra.requests.length).toBe(before);
    expect(stack.audit.slice(audited)).toEqual([
      expect.objectContaining({
        field: 'signIn',
        outcome: 'BAD_USER_INPUT',
        arguments: { username: 'ꦲ𐳠', password: '[REDACTED]', tenant: 'vsphere.local' },
      }),
    ]);
  });

  it('answers UNAUTHENTICATED to a wrong password, sets no cookie and names no secret', async () => {
    const { answer, cookie } = await signIn({ ...developer, password: 'wrong-password-1' });
    expect(answer.data).toBeNull();
    expect(answer.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');
    expect(cookie).toBeUndefined();
    expect(JSON.stringify(answer)).not.toContain('wrong-password-1');
  });
});

describe('a session ends', () => {
  it('with signOut: the vRA token is deleted, the cookie cleared, and the old cookie answers 401', async () => {
    const cookie = (await signIn(developer)).cookie ?? '';
    const [token] = stack.vra.issuedTokens().slice(-1);
    const from = stack.vra.requests.length;
    const out = await stack.gql<any>('mutation { signOut }', {}, withCookie(cookie));
    expect(out.data).toEqual({ signOut: true });
    expect(stack.vra.requests.slice(from).map((r) => `${r.method} ${r.rawPath}`)).toEqual([
      `DELETE /identity/api/tokens/${encodeURIComponent(token ?? '')}`,
    ]);
    expect(stack.vra.tokenUser(token ?? '')).toBeUndefined();
    expect(out.headers.getSetCookie().join()).toMatch(
      /gateway_session=;.*Expires=Thu, 01 Jan 1970/,
    );

    const before = upstreamCalls(stack);
    const after = await stack.gql(itemsQuery, {}, withCookie(cookie));
    expect(after.status).toBe(401);
    expect(after.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');
    expect(upstreamCalls(stack)).toBe(before);
    // an ended session never falls back to the service account
    expect(after.data).toBeUndefined();
  });

  it('answers signOut false without a session', async () => {
    expect((await stack.gql<any>('mutation { signOut }')).data).toEqual({ signOut: false });
  });

  it('when vRA refuses its token (expired): that request fails UNAUTHENTICATED, the next answers 401', async () => {
    const cookie = (await signIn(dba)).cookie ?? '';
    stack.vra.expireTokensOf(dba.username);
    const refused = await stack.gql(itemsQuery, {}, withCookie(cookie));
    expect(refused.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');
    expect(refused.headers.getSetCookie().join()).toMatch(/gateway_session=;/);
    const before = upstreamCalls(stack);
    const next = await stack.gql(itemsQuery, {}, withCookie(cookie));
    expect(next.status).toBe(401);
    expect(upstreamCalls(stack)).toBe(before);
  });

  it('lets a request with an ended session still ask who it is and sign in again', async () => {
    const cookie = (await signIn(developer)).cookie ?? '';
    await stack.gql('mutation { signOut }', {}, withCookie(cookie));
    const who = await stack.gql<any>('{ viewer { name } }', {}, withCookie(cookie));
    expect(who.status).toBe(200);
    expect(who.data).toEqual({ viewer: null });
    const again = await signIn(developer, withCookie(cookie));
    expect(again.answer.data.signIn.name).toBe(developer.username);
    expect(again.cookie).not.toBe(cookie);
  });
});

describe('brute force', () => {
  it('refuses a sixth failed sign-in for one user name within the window with 429 RATE_LIMITED, without asking vRA', async () => {
    const victim = { username: 'tester@vsphere.local', password: 'not-it' };
    for (let i = 0; i < 5; i += 1) {
      const { answer } = await signIn(victim);
      expect(answer.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');
    }
    const before = stack.vra.requests.length;
    const { answer } = await signIn({ ...victim, password: 'tester-simulator' });
    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(answer.errors?.[0]?.extensions?.['code']).toBe('RATE_LIMITED');
    expect(stack.vra.requests.length).toBe(before);
    // another user's sign-in is not held back, and does not free the victim's name
    expect((await signIn(developer)).answer.data.signIn.name).toBe(developer.username);
    expect((await signIn({ ...victim, password: 'tester-simulator' })).answer.status).toBe(429);
  });
});

describe('brute force from one address', () => {
  it('refuses sign-ins from a client address after 20 failures within the window, whatever the user name', async () => {
    const server = await listen(stack.gateway);
    try {
      const attempt = async (username: string, password: string) => {
        const response = await fetch(`${server.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-graphql-csrf': '1' },
          body: JSON.stringify({ query: signInMutation, variables: { u: username, p: password } }),
        });
        return { status: response.status, body: await response.json() };
      };
      for (let i = 0; i < 20; i += 1) {
        const { body } = await attempt(`spray-${i}@vsphere.local`, 'guess');
        expect(body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
      }
      const before = stack.vra.requests.length;
      const refused = await attempt(dba.username, dba.password);
      expect(refused.status).toBe(429);
      expect(refused.body.errors[0].extensions.code).toBe('RATE_LIMITED');
      expect(stack.vra.requests.length).toBe(before);
    } finally {
      await server.close();
    }
  });
});

describe('the request log', () => {
  it('names who called each request and how, never their cookie or vRA token', async () => {
    const cookie = (await signIn(dba)).cookie ?? '';
    await stack.gql('{ viewer { name } }', {}, { ...withCookie(cookie), 'x-request-id': 'who-1' });
    const line = logLines
      .flatMap((l) => l.split('\n'))
      .filter((l) => l.includes('"who-1"') && l.includes('graphql request'));
    expect(line).toHaveLength(1);
    expect(JSON.parse(line[0] ?? '')).toMatchObject({
      caller: { name: dba.username, via: 'session' },
    });
    const written = logLines.join('');
    expect(written).not.toContain(cookie);
    for (const token of stack.vra.issuedTokens()) expect(written).not.toContain(token);
  });
});

describe('the password', () => {
  it('is never logged, traced or echoed, in any form', async () => {
    const password = 'Sup3r-Secret-Passw0rd!';
    await signIn({ username: developer.username, password });
    await signIn({ username: password, password });
    const forms = [
      password,
      encodeURIComponent(password),
      Buffer.from(password).toString('base64'),
      JSON.stringify(password).slice(1, -1),
    ];
    const written = logLines.join('') + JSON.stringify(stack.audit);
    for (const form of forms) expect(written).not.toContain(form);
  });
});
