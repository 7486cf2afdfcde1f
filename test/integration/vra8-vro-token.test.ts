/**
 * vRO authenticating through vRA (VRO_AUTH_MODE=vra-token) on both vRA
 * generations: a person signed in to the gateway runs a workflow, and vRO
 * receives that person's own vRA bearer (a vRA 8 one on vRA 8: vRO 8 trusts
 * the tokens of the vRA 8 it is joined to), not the gateway's account.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generations, type GenerationStack } from '../helpers/generations.ts';
import { vroReceived } from '../helpers/vro-runs.ts';

const developer = { username: 'developer@vsphere.local', password: 'developer-simulator' };
const echo = 'aefcfad8-efc8-4849-b3aa-7efe4458a885';

describe.each(generations)(
  'vRO with the vRA bearer of the signed-in user on $name',
  (generation) => {
    let harness: GenerationStack;
    beforeAll(async () => {
      harness = await generation.start({ env: { VRO_AUTH_MODE: 'vra-token' } });
    });
    afterAll(() => harness.close());

    it("runs a workflow on vRO with the user's own vRA bearer, and vRO starts it as that user", async () => {
      const { stack, vra } = harness;
      const signedIn = await stack.gql<any>(
        'mutation($u: String!, $p: String!) { signIn(username: $u, password: $p) { name via } }',
        { u: developer.username, p: developer.password },
      );
      expect(signedIn.errors).toBeUndefined();
      expect(signedIn.data.signIn).toEqual({ name: developer.username, via: 'SESSION' });
      const line = signedIn.headers.getSetCookie().find((c) => c.startsWith('gateway_session='));
      const cookie = `gateway_session=${/^gateway_session=([^;]*)/.exec(line ?? '')?.[1] ?? ''}`;

      const [ran, calls] = await vroReceived(stack, () =>
        stack.gql<any>(
          `mutation($w: ID!, $i: [WorkflowParameterInput!]) {
          runWorkflow(workflowId: $w, inputs: $i) { execution { id } } }`,
          { w: echo, i: [{ name: 'text', type: 'string', value: 'from vRA' }] },
          { cookie },
        ),
      );
      expect(ran.errors).toBeUndefined();
      const posted = calls.filter((c) => c.method === 'POST' && c.path.endsWith('/executions/'));
      expect(posted).toHaveLength(1);
      const authorization = posted[0]!.headers.authorization ?? '';
      expect(authorization).toMatch(/^Bearer \S+$/);
      const bearer = authorization.slice('Bearer '.length);
      // a bearer this generation's vRA issued to the developer, and no other credential
      expect(vra.bearerUser(bearer)).toBe(developer.username);
      for (const call of calls) expect(call.headers.authorization).toBe(authorization);

      const read = await stack.gql<any>(
        'query($w: ID!, $e: ID!) { workflowExecution(workflowId: $w, executionId: $e) { startedBy } }',
        { w: echo, e: ran.data.runWorkflow.execution.id },
        { cookie },
      );
      expect(read.errors).toBeUndefined();
      expect(read.data.workflowExecution.startedBy).toBe(developer.username);
      expect(vra.refusals()).toEqual([]);
    });
  },
);
