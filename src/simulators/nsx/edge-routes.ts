/**
 * `/api/{3.0|4.0}/edges/{edgeId}`: force sync (`POST ?action=forcesync`, no
 * body; the documented GET form answers 405) and load-balancer virtual
 * servers on the plural `virtualservers` path (the singular is unknown).
 */
import { isIP } from 'node:net';
import { sendEmpty } from '../sim-server.ts';
import {
  errorCodes,
  methodNotAllowed,
  notFound,
  readBody,
  sendError,
  sendXml,
  type SimCall,
} from './sim-context.ts';
import type { SimEdge } from './seed.ts';
import { el, kidText, leaf, type SimElement } from './sim-xml.ts';
import { isBooleanText, isPortList } from './sim-values.ts';

export const edgeApiVersions = ['3.0', '4.0'];

function forceSync(call: SimCall, edge: SimEdge): void {
  const action = call.request.query.get('action');
  if (call.request.method !== 'POST') {
    if (action !== null) return methodNotAllowed(call, ['POST']);
    if (call.request.method !== 'GET') return methodNotAllowed(call, ['GET', 'POST']);
    return sendXml(call, 200, el('edge', [leaf('id', edge.id), leaf('type', 'gatewayServices')]));
  }
  if (action !== 'forcesync' && action !== 'redeploy' && action !== 'upgrade') {
    return sendError(
      call,
      400,
      errorCodes.badRequest,
      'action must be forcesync, redeploy or upgrade.',
    );
  }
  if (call.request.body.length > 0) {
    return sendError(call, 400, errorCodes.badRequest, `action=${action} takes no body.`);
  }
  if (action === 'forcesync') edge.forceSyncs += 1;
  sendEmpty(
    call.response,
    call.switches.forceSyncStatus,
    call.switches.forceSyncStatus === 200 ? { 'content-length': '0' } : {},
  );
}

/** A problem with a `<virtualServer>`, or undefined. */
function virtualServerProblem(body: SimElement): string | undefined {
  const text = (tag: string) => kidText(body, tag)?.trim();
  if ((text('name') ?? '') === '') return 'name is required.';
  const ip = text('ipAddress') ?? '';
  if (isIP(ip) === 0) return `Invalid IP address ${ip}.`;
  const protocol = (text('protocol') ?? '').toLowerCase();
  if (!['http', 'https', 'tcp', 'udp'].includes(protocol)) return `Invalid protocol ${protocol}.`;
  const port = text('port') ?? '';
  if (!isPortList(port)) return `Invalid port ${port}.`;
  for (const tag of ['connectionLimit', 'connectionRateLimit']) {
    const value = text(tag);
    if (value !== undefined && !/^\d+$/.test(value)) return `${tag} must be a whole number.`;
  }
  for (const tag of ['enabled', 'accelerationEnabled', 'enableServiceInsertion']) {
    const value = text(tag);
    if (value !== undefined && !isBooleanText(value)) return `${tag} must be true or false.`;
  }
  return undefined;
}

function addVirtualServer(call: SimCall, version: string, edge: SimEdge): void {
  if (call.request.method !== 'POST') return methodNotAllowed(call, ['POST']);
  const body = readBody(call, 'virtualServer');
  if (body === undefined) return;
  const problem = virtualServerProblem(body);
  if (problem !== undefined) return sendError(call, 400, errorCodes.invalidValue, problem);
  const id = `virtualServer-${call.state.nextVirtualServer++}`;
  edge.virtualServers.push(el('virtualServer', [leaf('virtualServerId', id), ...body.kids]));
  sendCreatedEmpty(
    call,
    `/api/${version}/edges/${edge.id}/loadbalancer/config/virtualservers/${id}`,
  );
}

/** The load balancer answers a create with the Location alone. */
function sendCreatedEmpty(call: SimCall, location: string): void {
  sendEmpty(call.response, 201, {
    'content-length': '0',
    ...(call.switches.omitLocation ? {} : { location }),
  });
}

/** Handles `/api/{version}/edges/...`; `rest` follows `edges`. */
export function edgeRoutes(call: SimCall, version: string, rest: string[]): void {
  const [edgeId = '', ...more] = rest;
  const edge = call.state.edges.find((e) => e.id === edgeId);
  if (edge === undefined || !edgeApiVersions.includes(version)) return notFound(call, edgeId);
  if (more.length === 0) return forceSync(call, edge);
  if (
    more.length === 3 &&
    more[0] === 'loadbalancer' &&
    more[1] === 'config' &&
    more[2] === 'virtualservers'
  ) {
    return addVirtualServer(call, version, edge);
  }
  notFound(call, call.request.rawPath);
}
