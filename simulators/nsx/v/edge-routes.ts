/**
 * `/api/{3.0|4.0}/edges`: the paged edge list, `{edgeId}/summary`, force sync
 * (`POST ?action=forcesync`, no body but `Content-Type: application/xml`; the
 * documented GET form answers 405) and load-balancer virtual servers on the
 * plural `virtualservers` path (the singular is unknown). Which versions are
 * served depends on the manager: NSX-v 6.x serves 4.0, vCNS 5.x 3.0.
 */
import { isIP } from 'node:net';
import { sendEmpty } from '../../sim-server.ts';
import {
  errorCodes,
  mediaTypeAccepted,
  methodNotAllowed,
  notFound,
  readCheckedBody,
  sendError,
  sendXml,
  type SimCall,
} from './sim-context.ts';
import type { SimEdge } from './seed.ts';
import { el, kids, kidText, leaf, type SimElement } from './sim-xml.ts';
import { isBooleanText, isPortList } from './sim-values.ts';

function forceSync(call: SimCall, edge: SimEdge): void {
  const action = call.request.query.get('action');
  if (call.request.method !== 'POST') {
    if (action !== null) return methodNotAllowed(call, ['POST']);
    if (call.request.method !== 'GET') return methodNotAllowed(call, ['GET', 'POST']);
    return sendXml(call, 200, el('edge', [leaf('id', edge.id), leaf('type', 'gatewayServices')]));
  }
  if (!mediaTypeAccepted(call)) return;
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

/** The body without any `<virtualServerId>`, checked; undefined after answering the error. */
function virtualServerBody(call: SimCall): SimElement[] | undefined {
  const body = readCheckedBody(call, 'virtualServer', virtualServerProblem);
  return body === undefined ? undefined : kids(body).filter((kid) => kid.tag !== 'virtualServerId');
}

function virtualServerId(server: SimElement): string {
  return kidText(server, 'virtualServerId') ?? '';
}

function virtualServers(call: SimCall, version: string, edge: SimEdge): void {
  if (call.request.method === 'GET') {
    return sendXml(call, 200, el('loadBalancer', edge.virtualServers));
  }
  if (call.request.method !== 'POST') return methodNotAllowed(call, ['GET', 'POST']);
  const fields = virtualServerBody(call);
  if (fields === undefined) return;
  const id = `virtualServer-${call.state.nextVirtualServer++}`;
  edge.virtualServers.push(el('virtualServer', [leaf('virtualServerId', id), ...fields]));
  sendCreatedEmpty(
    call,
    `/api/${version}/edges/${edge.id}/loadbalancer/config/virtualservers/${id}`,
  );
}

function virtualServer(call: SimCall, edge: SimEdge, id: string): void {
  const index = edge.virtualServers.findIndex((server) => virtualServerId(server) === id);
  const server = edge.virtualServers[index];
  if (server === undefined) return notFound(call, id);
  switch (call.request.method) {
    case 'GET':
      return sendXml(call, 200, server);
    case 'PUT': {
      const fields = virtualServerBody(call);
      if (fields === undefined) return;
      edge.virtualServers[index] = el('virtualServer', [leaf('virtualServerId', id), ...fields]);
      return sendEmpty(call.response, 204);
    }
    case 'DELETE':
      edge.virtualServers.splice(index, 1);
      return sendEmpty(call.response, 204);
    default:
      return methodNotAllowed(call, ['GET', 'PUT', 'DELETE']);
  }
}

/** The load balancer answers a create with the Location alone. */
function sendCreatedEmpty(call: SimCall, location: string): void {
  sendEmpty(call.response, 201, {
    'content-length': '0',
    ...(call.switches.omitLocation ? {} : { location }),
  });
}

/** `GET /api/{v}/edges?startIndex=&pageSize=` (RAML 6.4: pageSize 1-1024, default 256). */
function edgeList(call: SimCall): void {
  if (call.request.method !== 'GET') return methodNotAllowed(call, ['GET', 'POST']);
  const number = (name: string, fallback: number): number | undefined => {
    const raw = call.request.query.get(name);
    if (raw === null) return fallback;
    return /^\d{1,7}$/.test(raw) ? Number(raw) : undefined;
  };
  const startIndex = number('startIndex', 0);
  const pageSize = number('pageSize', 256);
  if (startIndex === undefined || pageSize === undefined || pageSize < 1 || pageSize > 1024) {
    return sendError(
      call,
      400,
      errorCodes.badRequest,
      'startIndex must be 0 or more and pageSize 1 to 1024.',
    );
  }
  const all = call.state.edges;
  const page = all.slice(startIndex, startIndex + pageSize);
  const pagingInfo = el('pagingInfo', [
    leaf('pageSize', pageSize),
    leaf('startIndex', startIndex),
    leaf('totalCount', all.length),
    leaf('sortOrderAscending', 'true'),
    leaf('sortBy', 'id'),
  ]);
  sendXml(
    call,
    200,
    el('pagedEdgeList', [
      el('edgePage', [
        pagingInfo,
        ...page.map((edge) => ({ ...edge.summary, tag: 'edgeSummary' })),
      ]),
    ]),
  );
}

/** Handles `/api/{version}/edges...`; `rest` follows `edges`. */
export function edgeRoutes(call: SimCall, version: string, rest: string[]): void {
  if (!call.manager.edgeApiVersions.includes(version)) return notFound(call, call.request.rawPath);
  if (rest.length === 0) return edgeList(call);
  const [edgeId = '', ...more] = rest;
  const edge = call.state.edges.find((e) => e.id === edgeId);
  if (edge === undefined) return notFound(call, edgeId);
  if (more.length === 0) return forceSync(call, edge);
  if (more.length === 1 && more[0] === 'summary') {
    if (call.request.method !== 'GET') return methodNotAllowed(call, ['GET']);
    return sendXml(call, 200, edge.summary);
  }
  const [loadbalancer, config, servers, id, ...beyond] = more;
  if (loadbalancer !== 'loadbalancer' || config !== 'config' || servers !== 'virtualservers') {
    return notFound(call, call.request.rawPath);
  }
  if (id === undefined) return virtualServers(call, version, edge);
  if (beyond.length === 0) return virtualServer(call, edge, id);
  notFound(call, call.request.rawPath);
}
