/**
 * CPU time per operation of the gateway against the floors, under the same
 * load in turns (the order alternates each round): the bare proxy (the REST
 * GET the gateway makes), bare yoga, yoga's operation step under node:http
 * (`bare-envelop.ts`) and the lean node:http server (`bare-lean.ts`), each
 * with the one-resolver schema of `bare-schema.ts`.
 *
 *   node test/bench/floor-ab.ts [--rounds 6] [--seconds 6] [--connections 50] [--entry <main.ts>] [--cpu-prof <dir>]
 */
import { parseArgs } from 'node:util';
import { startBenchStack } from './bench-stack.ts';
import { expectData, gql } from './graphql-client.ts';
import { graphqlPost } from './load.ts';
import { pairedRounds, spreadOf, type PairedTarget } from './paired-rounds.ts';
import { startFloor, type FloorServer } from './floor-process.ts';
import { firstJsonLine, spawnNode, type Spawned } from './processes.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '6' },
    seconds: { type: 'string', default: '6' },
    connections: { type: 'string', default: '50' },
    'cpu-prof': { type: 'string' },
    /** Another gateway entry to measure beside (`src/main.ts` of another checkout, say). */
    entry: { type: 'string' },
  },
});
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const profileFlags =
  values['cpu-prof'] === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`];
const query = '{ workflows(first: 20) { nodes { id name description version categoryName } } }';
const restPath = '/workflows?maxResult=20&startIndex=0';

const stack = await startBenchStack({ nodeFlags: profileFlags });
const other =
  values.entry === undefined
    ? undefined
    : await startBenchStack({ nodeFlags: profileFlags, entry: values.entry });
const started: Spawned[] = [];
try {
  const { vro } = stack.upstreams;
  const { url, username, password } = vro;
  const floor = async (label: string, args: readonly string[]): Promise<[Spawned, string]> => {
    const spawned = spawnNode(label, [...profileFlags, ...args]);
    started.push(spawned);
    return [spawned, (await firstJsonLine<{ url: string }>(spawned)).url];
  };
  const [proxy, proxyOrigin] = await floor('bare proxy', [
    'test/bench/bare-proxy.ts',
    new URL(url).origin,
  ]);
  const floorOf = async (server: FloorServer): Promise<[Spawned, string]> => {
    const running = await startFloor(server, { operation: 'workflows', vro }, profileFlags);
    started.push(running.process);
    return [running.process, running.origin];
  };
  const [yoga, yogaOrigin] = await floorOf('yoga');
  const [envelop, envelopOrigin] = await floorOf('envelop');
  const [lean, leanOrigin] = await floorOf('lean');
  for (const origin of [stack.gatewayOrigin, yogaOrigin, envelopOrigin, leanOrigin]) {
    expectData(await gql(origin, query), origin);
  }
  const timing = { connections, durationSeconds: seconds, warmupSeconds: 0 };
  const rest = new URL(url + restPath);
  const targets: PairedTarget[] = [
    {
      name: 'proxy',
      pid: proxy.pid,
      spec: (s) => ({
        ...timing,
        durationSeconds: s,
        url: proxyOrigin + rest.pathname + rest.search,
        method: 'GET',
        headers: {
          authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
          accept: 'application/json',
        },
      }),
    },
    {
      name: 'lean',
      pid: lean.pid,
      spec: (s) => graphqlPost(leanOrigin, query, { ...timing, durationSeconds: s }),
    },
    {
      name: 'yoga under node:http',
      pid: envelop.pid,
      spec: (s) => graphqlPost(envelopOrigin, query, { ...timing, durationSeconds: s }),
    },
    {
      name: 'yoga',
      pid: yoga.pid,
      spec: (s) => graphqlPost(yogaOrigin, query, { ...timing, durationSeconds: s }),
    },
    {
      name: 'gateway',
      pid: stack.gateway.pid,
      spec: (s) => graphqlPost(stack.gatewayOrigin, query, { ...timing, durationSeconds: s }),
    },
  ];
  if (other !== undefined) {
    expectData(await gql(other.gatewayOrigin, query), 'other');
    targets.push({
      name: 'other',
      pid: other.gateway.pid,
      spec: (s) => graphqlPost(other.gatewayOrigin, query, { ...timing, durationSeconds: s }),
    });
  }
  if (values['cpu-prof'] !== undefined) {
    console.log(`profiled pids: ${targets.map((t) => `${t.name} ${t.pid}`).join(', ')}`);
  }
  const perTarget = await pairedRounds(
    targets.map((target) => ({ ...target, busyOf: { simulator: stack.simulators.pid } })),
    {
      rounds,
      seconds,
      warmupSeconds: 3,
      onRound: (round, line) =>
        console.log(
          `round ${round + 1}: ${line.map(([name, run]) => `${name}: ${run.cpuMsPerOp.toFixed(3)} ms/op, ${Math.round(run.rate)}/s`).join(' | ')}`,
        ),
    },
  );
  const cpuOf = (name: string): number[] =>
    (perTarget.get(name) ?? []).map((run) => run.cpuMsPerOp);
  const proxyMedian = spreadOf(cpuOf('proxy')).median;
  for (const name of perTarget.keys()) {
    const { median: m, min, max } = spreadOf(cpuOf(name));
    console.log(
      `${name}: median ${m.toFixed(3)} ms/op (min ${min.toFixed(3)}, max ${max.toFixed(3)}), ${(m / proxyMedian).toFixed(2)}x the proxy`,
    );
  }
} finally {
  for (const spawned of started) await spawned.stop();
  await stack.close();
  await other?.close();
}
