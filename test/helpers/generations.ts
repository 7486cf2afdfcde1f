/**
 * One catalog test, two vRA generations: a gateway on the vRA 7 simulator
 * (simulators/vra/v7) or on the strict vRA 8 simulator (simulators/vra/v8),
 * each with the vRO and NSX simulators beside it, and the seed's ids of each
 * generation under the same names. vRO trusts the tokens of the vRA it sits
 * beside (its `bearerUser` is that vRA's), as with VRO_AUTH_MODE=vra-token.
 */
import type { RecordedRequest } from '../../simulators/sim-server.ts';
import {
  developmentProject,
  qualityProject,
  seededTemplates,
  startVra8Simulator,
  type Vra8Simulator,
} from '../../simulators/vra/v8/index.ts';
import { variablesOn, type Example } from './examples.ts';
import { startStack, type Stack, type StackOptions } from './stack.ts';

/** The vRA a harness runs, as the tests see it whichever the generation. */
export interface VraUnderTest {
  readonly url: URL;
  readonly username: string;
  readonly password: string;
  /** Every request it received, oldest first. */
  readonly requests: RecordedRequest[];
  /** The user a valid bearer token was issued to, or undefined. */
  bearerUser(token: string): string | undefined;
  /** Moves the simulator's manual clock forward (start it with `manualClock`). */
  advance(ms: number): void;
  /**
   * The requests it refused as malformed (400): on vRA 8 every body is
   * checked against VMware's definitions; the vRA 7 simulator has none, [].
   */
  refusals(): unknown[];
  /** A bearer token of this user, obtained as a client would (vRA 7 tokens, vRA 8 CSP login). */
  tokenOf(user: { username: string; password: string }): Promise<string>;
}

/** The seed's objects each test uses, under the same names on both generations. */
export interface GenerationIds {
  /** A catalog item the developer may order (shared with Development). */
  centos: { id: string; name: string; description: string };
  /** Business group (vRA 7) or project (vRA 8) of the developer. */
  development: { id: string; name: string };
  quality: { id: string; name: string };
  /** The resource type of the machine an order of `centos` builds. */
  machineType: string;
  /** The property of a machine's data that tells its power state, and its values. */
  power: { field: string; on: string; off: string };
}

export interface GenerationStack {
  /** The gateway with the vRO and NSX simulators; on vRA 8 its `vra` is an idle vRA 7 simulator: use `vra`. */
  stack: Stack;
  vra: VraUnderTest;
  close(): Promise<void>;
}

export interface GenerationOptions {
  env?: StackOptions['env'];
  vro?: StackOptions['vro'];
  /** Each state of a request lasts this long (default: the simulator's). */
  requestStepMs?: number;
  /** Requests age only through `vra.advance`. */
  manualClock?: boolean;
}

export interface Generation {
  name: 'vRA 7' | 'vRA 8';
  generation: '7' | '8';
  ids: GenerationIds;
  /**
   * An example's variables (test/helpers/examples.ts) for this generation, as
   * its files have them: `<name>.variables.json` on vRA 7;
   * `<name>.vra8.variables.json` on vRA 8 where given, else the plain one.
   */
  variablesOf(example: Example): Record<string, unknown> | undefined;
  start(options?: GenerationOptions): Promise<GenerationStack>;
}

const json = { accept: 'application/json', 'content-type': 'application/json' };

async function postJson(url: URL, body: unknown): Promise<any> {
  const response = await fetch(url, { method: 'POST', headers: json, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`POST ${url.pathname}: ${response.status}`);
  return response.json();
}

export const vra7: Generation = {
  name: 'vRA 7',
  generation: '7',
  ids: {
    centos: {
      id: 'c7a0e3d2-5b1f-4c8e-9a6d-3f2b1e0d9c01',
      name: 'CentOS 7 Machine',
      description: 'A CentOS 7 virtual machine on vSphere',
    },
    development: { id: '11ebafdb-bc9f-4b39-9a16-e2015b412627', name: 'Development' },
    quality: { id: '7276e9b5-883c-42f3-bdf7-62e7f0605cd6', name: 'Quality Engineering' },
    machineType: 'Infrastructure.Virtual',
    power: { field: 'MachineStatus', on: 'On', off: 'Off' },
  },
  variablesOf: (example) => example.variables,
  async start(options = {}) {
    const stack: Stack = await startStack({
      ...(options.env === undefined ? {} : { env: options.env }),
      vro: { ...options.vro, bearerUser: (token) => stack.vra.tokenUser(token) },
      vra: {
        ...(options.manualClock === undefined ? {} : { manualClock: options.manualClock }),
        ...(options.requestStepMs === undefined ? {} : { requestStepMs: options.requestStepMs }),
      },
    });
    const sim = stack.vra;
    return {
      stack,
      vra: {
        url: sim.url,
        username: sim.username,
        password: sim.password,
        requests: sim.requests,
        bearerUser: (token) => sim.tokenUser(token),
        advance: (ms) => sim.advance(ms),
        refusals: () => [],
        async tokenOf(user) {
          const answer = await postJson(new URL('/identity/api/tokens', sim.url), {
            ...user,
            tenant: sim.tenant,
          });
          return (answer as { id: string }).id;
        },
      },
      close: () => stack.close(),
    };
  },
};

const [centos8] = seededTemplates;

export const vra8: Generation = {
  name: 'vRA 8',
  generation: '8',
  ids: {
    centos: { id: centos8!.id, name: centos8!.name, description: centos8!.description },
    development: { id: developmentProject.id, name: developmentProject.name },
    quality: { id: qualityProject.id, name: qualityProject.name },
    machineType: 'Cloud.vSphere.Machine',
    power: { field: 'powerState', on: 'ON', off: 'OFF' },
  },
  variablesOf: (example) => variablesOn(example, 'vra8'),
  async start(options = {}) {
    const sim: Vra8Simulator = await startVra8Simulator({
      ...(options.manualClock === undefined ? {} : { manualClock: options.manualClock }),
      ...(options.requestStepMs === undefined ? {} : { requestStepMs: options.requestStepMs }),
    });
    const stack = await startStack({
      ...(options.env === undefined ? {} : { env: options.env }),
      vro: { ...options.vro, bearerUser: (token) => sim.bearerUser(token) },
      configure: (config) => ({
        ...config,
        vra: {
          ...config.vra,
          generation: '8',
          url: sim.url,
          username: sim.username,
          password: sim.password,
        },
      }),
    }).catch(async (error: unknown) => {
      await sim.close();
      throw error;
    });
    return {
      stack,
      vra: {
        url: sim.url,
        username: sim.username,
        password: sim.password,
        requests: sim.requests,
        bearerUser: (token) => sim.bearerUser(token),
        advance: (ms) => sim.advance(ms),
        refusals: () => sim.refusals,
        tokenOf: (user) => vra8Token(sim, user),
      },
      close: async () => {
        await stack.close();
        await sim.close();
      },
    };
  },
};

/** Both generations, for `describe.each(generations)('… on $name', …)`. */
export const generations: readonly Generation[] = [vra7, vra8];

/** A vRA 8 bearer of this user: the CSP login's refresh token exchanged at /iaas/api/login. */
export async function vra8Token(
  sim: Pick<Vra8Simulator, 'url'>,
  user: { username: string; password: string },
): Promise<string> {
  const csp = (await postJson(new URL('/csp/gateway/am/api/login?access_token', sim.url), {
    username: user.username,
    password: user.password,
  })) as { refresh_token: string };
  const iaas = (await postJson(new URL('/iaas/api/login', sim.url), {
    refreshToken: csp.refresh_token,
  })) as { token: string };
  return iaas.token;
}
