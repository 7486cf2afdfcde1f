/**
 * What a fast lane in front of yoga could reach (bench only, issue 17): the
 * gateway as `src/main.ts` builds it, with a lean node:http path for a POST
 * to /graphql from a non-browser client (no `Origin`): the body JSON-parsed,
 * the query compiled once by graphql-jit against the gateway's schema, run
 * with the gateway's own context, resolvers and upstream clients, the result
 * JSON-stringified and sent, the request's log line and metric recorded.
 * Everything else goes to yoga. None of the lane's policy checks, error
 * handling or fall-through: a measure, not a server. Started like
 * `src/main.ts` (cpu-ab.ts's `"entry": "test/bench/lane-prototype.ts"`,
 * floor-ab.ts's `--entry`), with the upstreams' URLs set.
 */
import { anonymous } from '../../src/auth/caller.ts';
import { setRequestAuth } from '../../src/auth/request-auth.ts';
import { allScopes } from '../../src/auth/scopes.ts';
import { createServer, type ServerResponse } from 'node:http';
import { parse, validate, type ExecutionResult } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { loadConfig } from '../../src/config.ts';
import { createContext } from '../../src/context.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { requestInfo } from '../../src/request-info.ts';
import { createGateway } from '../../src/server.ts';
import { startSimulators } from '../../simulators/index.ts';

const config = loadConfig(process.env);
const logger = createLogger(config.logLevel);
// with every upstream URL set, this starts nothing: it resolves the configuration
const simulators = await startSimulators(config);
const gateway = createGateway(simulators.config, { logger });
const { schema } = gateway.yoga.getEnveloped({});
const compiled = new Map<string, CompiledQuery>();

function compiledFor(query: string): CompiledQuery | undefined {
  const known = compiled.get(query);
  if (known !== undefined) return known;
  const document = parse(query);
  if (validate(schema, document).length > 0) return undefined;
  const result = compileQuery(schema, document);
  if (!isCompiledQuery(result)) return undefined;
  compiled.set(query, result);
  return result;
}

function answer(response: ServerResponse, requestId: string, text: string): void {
  response.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'x-request-id': requestId,
  });
  response.end(text);
}

const server = createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== '/graphql' || req.headers.origin !== undefined) {
    gateway.requestListener(req, res);
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const params = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { query: string };
    const query = compiledFor(params.query);
    if (query === undefined) throw new Error('lane prototype: only valid queries');
    const headers = req.headers;
    const request = {
      headers: { get: (name: string) => (headers[name] as string | undefined) ?? null },
    } as unknown as Request;
    const info = requestInfo(request);
    const controller = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    setRequestAuth(request, {
      caller: anonymous(new Set(allScopes)),
      clientAddress: null,
      setCookies: [],
    });
    const context = createContext(
      request,
      gateway.clients,
      simulators.config,
      gateway.identity,
      controller.signal,
    );
    void Promise.resolve(query.query(undefined, context, {})).then((result: ExecutionResult) => {
      answer(res, info.requestId, JSON.stringify(result));
      const seconds = (performance.now() - info.startedAt) / 1000;
      const failed = result.errors !== undefined;
      gateway.metrics.observeOperation('query', 'anonymous', failed ? 'error' : 'ok', seconds);
      logger.info(
        {
          requestId: info.requestId,
          operationName: null,
          operationType: 'query',
          status: 200,
          durationMs: Math.round(seconds * 10000) / 10,
          upstreamCalls: info.upstreamCalls,
        },
        'graphql request',
      );
    });
  });
});
server.keepAliveTimeout = config.server.keepAliveTimeoutMs;
server.listen(config.port, config.host);
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => void gateway.close().then(() => process.exit(0)));
});
