import type { RecordedRequest } from '../../simulators/sim-server.ts';
import type { VraSimulator } from '../../simulators/vra/v7/index.ts';
import type { GraphQLAnswer } from './stack.ts';

export const providersPath = '/catalog-service/api/providers';
export const catalogItemsPath = '/catalog-service/api/catalogItems';
export const tokensPath = '/identity/api/tokens';

/** Token requests the vRA simulator received. */
export const tokenRequests = (sim: VraSimulator): RecordedRequest[] =>
  sim.requestsTo('POST', tokensPath);

/** Provider list calls the vRA simulator received. */
export const providerListCalls = (sim: VraSimulator): RecordedRequest[] =>
  sim.requestsTo('GET', providersPath);

/** Every request to the catalog service (not the identity service). */
export const catalogCalls = (sim: VraSimulator): RecordedRequest[] =>
  sim.requests.filter((r) => r.path.startsWith('/catalog-service/'));

export const registerPuts = (sim: VraSimulator): RecordedRequest[] =>
  sim.requests.filter((r) => r.method === 'PUT');

export const iaasProvider = (sim: VraSimulator) => {
  const provider = sim.providers.find((p) => p.name === 'iaas-service');
  if (provider === undefined) throw new Error('the simulator has no iaas-service provider');
  return provider;
};

/** The bearer token a recorded request carried. */
export const bearerOf = (request: RecordedRequest | undefined): string | undefined =>
  /^Bearer (\S+)$/.exec(request?.headers.authorization ?? '')?.[1];

/** The first error of an answer, failing when there is none. */
export function firstError(answer: GraphQLAnswer) {
  const error = answer.errors?.[0];
  if (error === undefined) throw new Error(`expected an error, got ${JSON.stringify(answer.data)}`);
  return error;
}

/** Checks that nothing secret or internal leaks into a GraphQL answer. */
export function expectNoSecrets(answer: GraphQLAnswer, sim: VraSimulator): void {
  const text = JSON.stringify({ data: answer.data, errors: answer.errors });
  for (const token of sim.issuedTokens()) {
    if (text.includes(token)) throw new Error('a vRA token leaked into the answer');
  }
  if (text.includes(sim.password)) throw new Error('the vRA password leaked into the answer');
  if (text.includes(sim.url.host)) throw new Error('the vRA address leaked into the answer');
}

/** Logs in to the vRA simulator as `user` (default: its service account): the bearer token. */
export async function vraLogin(
  sim: VraSimulator,
  user: { username: string; password: string } = sim,
): Promise<string> {
  const response = await fetch(new URL(tokensPath, sim.url), {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify({ username: user.username, password: user.password, tenant: sim.tenant }),
  });
  if (response.status !== 200) throw new Error(`the vRA simulator refused ${user.username}`);
  return ((await response.json()) as { id: string }).id;
}

/** A vRA token of one of the simulator's users, obtained as a front-end would: the `Bearer …` value to send. */
export async function userBearer(
  sim: VraSimulator,
  user: { username: string; password: string },
): Promise<string> {
  return `Bearer ${await vraLogin(sim, user)}`;
}
