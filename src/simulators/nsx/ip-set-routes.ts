/**
 * `/api/2.0/services/ipset/...`: `GET scope/{scope}` lists, `POST {scope}`
 * creates, `GET|PUT|DELETE {id}`. The documented-wrong list without the
 * `scope` segment reads as an unknown IP set: 404.
 */
import {
  commonHead,
  deleteGroupingObject,
  idMatches,
  readFields,
  revisionMatches,
} from './grouping-common.ts';
import {
  errorCodes,
  methodNotAllowed,
  notFound,
  readBody,
  sendCreated,
  sendError,
  sendNoContent,
  sendXml,
  type SimCall,
} from './sim-context.ts';
import type { NsxState, SimIpSet } from './seed.ts';
import { el, kidText, leaf, type SimElement } from './sim-xml.ts';
import { isIpSetValue } from './sim-values.ts';

function ipSetXml(state: NsxState, ipSet: SimIpSet): SimElement {
  const extended = ipSet.readOnly
    ? [el('extendedAttribute', [leaf('name', 'isReadOnly'), leaf('value', 'true')])]
    : [];
  return el('ipset', [
    ...commonHead(
      state,
      ipSet.objectId,
      'IPSet',
      ipSet.revision,
      ipSet.name,
      ipSet.description,
      ipSet.scopeId,
    ),
    el('extendedAttributes', extended),
    leaf('isUniversal', 'false'),
    leaf('universalRevision', 0),
    leaf('isTemporal', 'false'),
    leaf('inheritanceAllowed', ipSet.inheritanceAllowed),
    leaf('value', ipSet.value),
  ]);
}

/** `rest` follows `ipset`. */
export function ipSetRoutes(call: SimCall, rest: string[]): void {
  const { state, request } = call;
  if (rest.length === 2 && rest[0] === 'scope') {
    if (request.method !== 'GET') return methodNotAllowed(call, ['GET']);
    const scopeId = rest[1] ?? '';
    if (!state.scopes.some((s) => s.id === scopeId)) return notFound(call, scopeId);
    const items = state.ipSets.filter((s) => s.scopeId === scopeId).map((s) => ipSetXml(state, s));
    return sendXml(call, 200, el('list', items));
  }
  if (rest.length !== 1) return notFound(call, request.rawPath);
  const key = rest[0] ?? '';
  if (request.method === 'POST') return createIpSet(call, key);
  const ipSet = state.ipSets.find((s) => s.objectId === key);
  if (request.method !== 'GET' && request.method !== 'PUT' && request.method !== 'DELETE') {
    return methodNotAllowed(call, ['GET', 'PUT', 'DELETE', 'POST']);
  }
  if (ipSet === undefined) return notFound(call, key);
  if (request.method === 'GET') return sendXml(call, 200, ipSetXml(state, ipSet));
  if (request.method === 'PUT') return updateIpSet(call, ipSet);
  deleteGroupingObject(call, ipSet.objectId, () => {
    state.ipSets = state.ipSets.filter((s) => s !== ipSet);
  });
}

function createIpSet(call: SimCall, scopeId: string): void {
  const { state } = call;
  if (!state.scopes.some((s) => s.id === scopeId)) return notFound(call, scopeId);
  const body = readBody(call, 'ipset');
  if (body === undefined) return;
  const fields = readFields(call, body);
  if (fields === undefined) return;
  const value = kidText(body, 'value') ?? '';
  if (!isIpSetValue(value))
    return sendError(call, 400, errorCodes.invalidValue, `Invalid IP address value ${value}.`);
  if (state.ipSets.some((s) => s.scopeId === scopeId && s.name === fields.name)) {
    return sendError(
      call,
      400,
      errorCodes.duplicateName,
      `An IP set named ${fields.name} already exists in ${scopeId}.`,
    );
  }
  const objectId = `ipset-${state.nextIpSet++}`;
  state.ipSets.push({
    objectId,
    name: fields.name,
    description: fields.description ?? '',
    value,
    revision: 0,
    scopeId,
    inheritanceAllowed: fields.inheritanceAllowed ?? false,
    readOnly: false,
  });
  sendCreated(call, objectId, `/api/2.0/services/ipset/${objectId}`);
}

function updateIpSet(call: SimCall, ipSet: SimIpSet): void {
  const body = readBody(call, 'ipset');
  if (body === undefined || !idMatches(call, body, ipSet.objectId)) return;
  if (!revisionMatches(call, body, ipSet.revision)) return;
  const fields = readFields(call, body);
  if (fields === undefined) return;
  const value = kidText(body, 'value') ?? '';
  if (!isIpSetValue(value))
    return sendError(call, 400, errorCodes.invalidValue, `Invalid IP address value ${value}.`);
  ipSet.name = fields.name;
  ipSet.description = fields.description ?? '';
  ipSet.value = value;
  if (fields.inheritanceAllowed !== undefined) ipSet.inheritanceAllowed = fields.inheritanceAllowed;
  ipSet.revision += 1;
  if (call.switches.emptyIpSetPutAnswer) return sendNoContent(call);
  sendXml(call, 200, ipSetXml(call.state, ipSet));
}
