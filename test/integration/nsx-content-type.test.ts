import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../helpers/stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.close();
});

describe('what the manager is sent', () => {
  it('carries Content-Type application/xml on every write, force sync included (text/xml for vShield App)', async () => {
    const mutations = [
      `mutation { createIpSet(input: { name: "ct-a", addresses: ["10.1.0.1"] }) { id } }`,
      `mutation { updateIpSet(id: "ipset-3", input: { name: "IPSET-2", addresses: ["10.1.0.2"] }) { id } }`,
      `mutation { createService(input: { name: "ct-s", protocol: "TCP", ports: "8080" }) { id } }`,
      `mutation { updateService(id: "application-401", input: { name: "DNS-UDP", protocol: "UDP", ports: "53" }) { id } }`,
      `mutation { addVirtualServer(edgeId: "edge-1", input: { name: "v", ipAddress: "10.0.0.9", protocol: "TCP", port: "8443" }) { id } }`,
      `mutation { updateVirtualServer(edgeId: "edge-1", id: "virtualServer-1", input: { name: "v1", ipAddress: "10.0.0.8", protocol: "HTTP", port: "80" }) { id } }`,
      `mutation { forceSyncEdge(edgeId: "edge-1") { accepted } }`,
      `mutation { addFirewallSectionRule(sectionId: "4", rule: { action: "allow" }) { id } }`,
      `mutation { addApplicationFirewallRule(portGroupId: "dvportgroup-63", rule: { action: "deny" }) { generationNumber } }`,
    ];
    for (const query of mutations) expect((await stack.gql(query)).errors, query).toBeUndefined();
    const writes = stack.nsx.requests.filter((r) => r.method === 'POST' || r.method === 'PUT');
    expect(writes.length).toBeGreaterThanOrEqual(mutations.length);
    for (const write of writes) {
      const expected = write.rawPath.startsWith('/api/2.0/app/firewall/')
        ? 'text/xml'
        : 'application/xml';
      expect(write.headers['content-type']?.split(';')[0], `${write.method} ${write.rawPath}`).toBe(
        expected,
      );
    }
  });
});
