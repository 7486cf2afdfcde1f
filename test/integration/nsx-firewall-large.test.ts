import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { largeFirewallContext } from '../../simulators/nsx/v/large-firewall.ts';
import { createNsxClient } from '../../src/upstreams/nsx/v/client.ts';
import { calls, storedRules } from '../helpers/nsx.ts';
import { startStack, type Stack } from '../helpers/stack.ts';

const firewallBytes = 1024 * 1024;
const configPath = `/api/2.0/app/firewall/${largeFirewallContext}/config`;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ nsx: { firewallBytes } });
});
afterAll(async () => {
  await stack.close();
});

describe('a megabyte firewall configuration', () => {
  it('is served by the simulator at about the size asked for', () => {
    const size = Buffer.byteLength(stack.nsx.firewallDocument(largeFirewallContext));
    expect(size).toBeGreaterThan(0.8 * firewallBytes);
    expect(size).toBeLessThan(1.25 * firewallBytes);
  });

  it('takes a new rule at the top and keeps every other rule exactly as the manager had it', async () => {
    const before = storedRules(stack.nsx, largeFirewallContext);
    stack.nsx.requests.length = 0;
    const answer = await stack.gql<any>(
      `mutation { addApplicationFirewallRule(portGroupId: "${largeFirewallContext}", position: 0, rule: { action: "deny", notes: "top & <first>", source: { address: { ipAddress: "10.1.2.3" } } }) { generationNumber rules { id notes } } }`,
    );
    expect(answer.errors).toBeUndefined();
    const rules = answer.data.addApplicationFirewallRule.rules as Array<{
      id: string;
      notes: string;
    }>;
    expect(rules).toHaveLength(before.size + 1);
    expect(rules[0]?.notes).toBe('top & <first>');
    expect(calls(stack.nsx)).toEqual([
      `GET ${configPath}`,
      `POST ${configPath}`,
      `GET ${configPath}`,
    ]);

    const after = storedRules(stack.nsx, largeFirewallContext);
    const newId = rules[0]?.id ?? '';
    expect(before.has(newId)).toBe(false);
    expect([...after.keys()]).toEqual([newId, ...before.keys()]);
    for (const [id, xml] of before) expect(after.get(id)).toBe(xml);
  });

  it('takes a write whose caller asks for the generation only, sent with its length, in the bytes a whole answer sends', async () => {
    stack.nsx.requests.length = 0;
    const mutation = (notes: string, fields: string) =>
      `mutation { addApplicationFirewallRule(portGroupId: "${largeFirewallContext}", position: 1, rule: { action: "allow", notes: "${notes}" }) { ${fields} } }`;
    const lean = await stack.gql<any>(mutation('lean', 'generationNumber'));
    expect(lean.errors).toBeUndefined();
    expect(calls(stack.nsx)).toEqual([
      `GET ${configPath}`,
      `POST ${configPath}`,
      `GET ${configPath}`,
    ]);
    const post = stack.nsx.requests[1];
    const now = await stack.gql<any>(
      `{ applicationFirewall(portGroupId: "${largeFirewallContext}") { generationNumber } }`,
    );
    expect(lean.data.addApplicationFirewallRule.generationNumber).toBe(
      now.data.applicationFirewall.generationNumber,
    );
    expect(Number(post?.headers['content-length'])).toBe(post?.body.length);
    expect(post?.headers['transfer-encoding']).toBeUndefined();
    // the same write, the rules asked for through a fragment: answered whole
    const whole = await stack.gql<any>(
      `${mutation('whole', '...all')} fragment all on FirewallConfig { generationNumber rules { notes } }`,
    );
    expect(whole.errors).toBeUndefined();
    expect(whole.data.addApplicationFirewallRule.rules[1].notes).toBe('whole');
    expect(whole.data.addApplicationFirewallRule.rules[2].notes).toBe('lean');
  });

  it('has its generation read back checked: a malformed answer is UPSTREAM_BAD_RESPONSE, a sound one its ETag', async () => {
    const client = createNsxClient(stack.config);
    const call = { signal: new AbortController().signal, requestId: 'generation' };
    try {
      const read = await client.getFirewallGeneration(call, largeFirewallContext);
      expect(read.generationNumber).toBe(
        (await client.getFirewall(call, largeFirewallContext)).generationNumber,
      );
      stack.nsx.faults.inject({ fault: { kind: 'malformed' }, method: 'GET', path: configPath });
      await expect(client.getFirewallGeneration(call, largeFirewallContext)).rejects.toMatchObject({
        code: 'UPSTREAM_BAD_RESPONSE',
      });
    } finally {
      stack.nsx.faults.clear();
      await client.close();
    }
  });

  it('is read whole, every rule with its parts', async () => {
    const answer = await stack.gql<any>(
      `{ applicationFirewall(portGroupId: "${largeFirewallContext}") { rules { id action source destination } } }`,
    );
    expect(answer.errors).toBeUndefined();
    const rules = answer.data.applicationFirewall.rules as Array<Record<string, unknown>>;
    expect(rules.length).toBe(storedRules(stack.nsx, largeFirewallContext).size);
    expect(rules[1]).toMatchObject({ action: expect.any(String), source: expect.any(Object) });
  });
});
