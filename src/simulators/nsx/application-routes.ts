/**
 * `/api/2.0/services/application/...`: `GET scope/{scope}` lists, `POST
 * {scope}` creates (the documented-wrong `POST scope/{scope}` is 404),
 * `GET|PUT|DELETE {id}`.
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
  sendXml,
  type SimCall,
} from './sim-context.ts';
import type { NsxState, SimApplication } from './seed.ts';
import { el, kid, kidText, leaf, type SimElement } from './sim-xml.ts';
import { serviceElementProblem } from './sim-values.ts';

function applicationXml(state: NsxState, app: SimApplication): SimElement {
  return el('application', [
    ...commonHead(
      state,
      app.objectId,
      'Application',
      app.revision,
      app.name,
      app.description,
      app.scopeId,
    ),
    el('extendedAttributes'),
    leaf('isUniversal', 'false'),
    leaf('universalRevision', 0),
    leaf('inheritanceAllowed', app.inheritanceAllowed),
    el('element', [
      leaf('applicationProtocol', app.protocol),
      ...(app.value === undefined ? [] : [leaf('value', app.value)]),
      ...(app.sourcePort === undefined ? [] : [leaf('sourcePort', app.sourcePort)]),
    ]),
  ]);
}

/** Where a firewall rule names the object; undefined when none does. */

interface ElementFields {
  protocol: string;
  value: string | undefined;
  sourcePort: string | undefined;
}

function readElement(call: SimCall, body: SimElement): ElementFields | undefined {
  const element = kid(body, 'element');
  const protocol =
    element === undefined ? undefined : kidText(element, 'applicationProtocol')?.trim();
  if (element === undefined || protocol === undefined || protocol === '') {
    sendError(call, 400, errorCodes.invalidValue, 'element/applicationProtocol is required.');
    return undefined;
  }
  const value = kidText(element, 'value');
  const sourcePort = kidText(element, 'sourcePort');
  const problem = serviceElementProblem(protocol, value, sourcePort);
  if (problem !== undefined) {
    sendError(call, 400, errorCodes.invalidValue, problem);
    return undefined;
  }
  return { protocol, value, sourcePort };
}

/** `rest` follows `application`. */
export function applicationRoutes(call: SimCall, rest: string[]): void {
  const { state, request } = call;
  if (rest.length === 2 && rest[0] === 'scope') {
    // POST .../application/scope/{moref} is the documented-wrong create path.
    if (request.method !== 'GET') return notFound(call, request.rawPath);
    const scopeId = rest[1] ?? '';
    if (!state.scopes.some((s) => s.id === scopeId)) return notFound(call, scopeId);
    const items = state.applications
      .filter((a) => a.scopeId === scopeId)
      .map((a) => applicationXml(state, a));
    return sendXml(call, 200, el('list', items));
  }
  if (rest.length !== 1) return notFound(call, request.rawPath);
  const key = rest[0] ?? '';
  if (request.method === 'POST') return createApplication(call, key);
  if (request.method !== 'GET' && request.method !== 'PUT' && request.method !== 'DELETE') {
    return methodNotAllowed(call, ['GET', 'PUT', 'DELETE', 'POST']);
  }
  const app = state.applications.find((a) => a.objectId === key);
  if (app === undefined) return notFound(call, key);
  if (request.method === 'GET') return sendXml(call, 200, applicationXml(state, app));
  if (request.method === 'PUT') return updateApplication(call, app);
  deleteGroupingObject(call, app.objectId, () => {
    state.applications = state.applications.filter((a) => a !== app);
  });
}

function createApplication(call: SimCall, scopeId: string): void {
  const { state } = call;
  if (!state.scopes.some((s) => s.id === scopeId)) return notFound(call, scopeId);
  const body = readBody(call, 'application');
  if (body === undefined) return;
  const fields = readFields(call, body);
  const element = fields === undefined ? undefined : readElement(call, body);
  if (fields === undefined || element === undefined) return;
  if (state.applications.some((a) => a.scopeId === scopeId && a.name === fields.name)) {
    return sendError(
      call,
      400,
      errorCodes.duplicateName,
      `A service named ${fields.name} already exists in ${scopeId}.`,
    );
  }
  const objectId = `application-${state.nextApplication++}`;
  state.applications.push({
    objectId,
    name: fields.name,
    description: fields.description ?? '',
    ...element,
    revision: 0,
    scopeId,
    inheritanceAllowed: fields.inheritanceAllowed ?? false,
  });
  sendCreated(call, objectId, `/api/2.0/services/application/${objectId}`);
}

function updateApplication(call: SimCall, app: SimApplication): void {
  const body = readBody(call, 'application');
  if (body === undefined || !idMatches(call, body, app.objectId)) return;
  if (!revisionMatches(call, body, app.revision)) return;
  const fields = readFields(call, body);
  const element = fields === undefined ? undefined : readElement(call, body);
  if (fields === undefined || element === undefined) return;
  Object.assign(app, element, {
    name: fields.name,
    description: fields.description ?? '',
    revision: app.revision + 1,
  });
  if (fields.inheritanceAllowed !== undefined) app.inheritanceAllowed = fields.inheritanceAllowed;
  sendXml(call, 200, applicationXml(call.state, app));
}

/** Handles `/api/2.0/services/...`; `rest` follows `services`. */
