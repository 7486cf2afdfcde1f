/** What IP sets and services share in the simulator: their routes, the head of their XML, field checks, in-use checks. */
import {
  errorCodes,
  methodNotAllowed,
  notFound,
  readBody,
  readForce,
  sendCreated,
  sendError,
  sendNoContent,
  sendXml,
  type SimCall,
} from './sim-context.ts';
import { housekeeping, type NsxState, type SimScope } from './seed.ts';
import { allTexts, el, kidText, leaf, type SimElement } from './sim-xml.ts';
import { isBooleanText } from './sim-values.ts';

function scopeXml(scope: SimScope | undefined, scopeId: string): SimElement {
  return el('scope', [
    leaf('id', scopeId),
    leaf('objectTypeName', scope?.objectTypeName ?? ''),
    leaf('name', scope?.name ?? ''),
  ]);
}

export function commonHead(
  state: NsxState,
  objectId: string,
  typeName: string,
  revision: number,
  name: string,
  description: string,
  scopeId: string,
): SimElement[] {
  return [
    leaf('objectId', objectId),
    leaf('objectTypeName', typeName),
    leaf('vsmUuid', housekeeping.vsmUuid),
    leaf('nodeId', housekeeping.nodeId),
    leaf('revision', revision),
    el('type', [leaf('typeName', typeName)]),
    leaf('name', name),
    leaf('description', description),
    scopeXml(
      state.scopes.find((s) => s.id === scopeId),
      scopeId,
    ),
    leaf('clientHandle', ''),
  ];
}

export function referencedBy(state: NsxState, objectId: string): string | undefined {
  for (const firewall of state.firewalls) {
    for (const rule of firewall.configuration.kids) {
      if (typeof rule !== 'string' && allTexts(rule).includes(objectId)) {
        const id = rule.attrs.find(([n]) => n === 'id')?.[1] ?? '?';
        return `firewall rule ${id} of ${firewall.contextId}`;
      }
    }
  }
  return undefined;
}

export interface Fields {
  name: string;
  description: string | undefined;
  inheritanceAllowed: boolean | undefined;
}

/** name, description and inheritanceAllowed of a body, or undefined after a 400. */
export function readFields(call: SimCall, body: SimElement): Fields | undefined {
  const name = kidText(body, 'name');
  if (name === undefined || name.trim() === '') {
    sendError(call, 400, errorCodes.invalidValue, 'name is required.');
    return undefined;
  }
  const inheritance = kidText(body, 'inheritanceAllowed')?.trim();
  if (inheritance !== undefined && inheritance !== '' && !isBooleanText(inheritance)) {
    sendError(call, 400, errorCodes.invalidValue, 'inheritanceAllowed must be true or false.');
    return undefined;
  }
  return {
    name,
    description: kidText(body, 'description'),
    inheritanceAllowed:
      inheritance === undefined || inheritance === '' ? undefined : inheritance === 'true',
  };
}

/** The body's revision equals the current one, or a 400/409 was answered. */
export function revisionMatches(call: SimCall, body: SimElement, current: number): boolean {
  const text = kidText(body, 'revision')?.trim();
  if (text === undefined || !/^\d+$/.test(text)) {
    sendError(call, 400, errorCodes.invalidValue, 'revision is required.');
    return false;
  }
  if (Number(text) !== current) {
    sendError(
      call,
      409,
      errorCodes.concurrentAccess,
      'Concurrent object access error. Refresh the UI or fetch the latest copy of the object and retry the operation.',
    );
    return false;
  }
  return true;
}

export function idMatches(call: SimCall, body: SimElement, id: string): boolean {
  const objectId = kidText(body, 'objectId')?.trim();
  if (objectId !== undefined && objectId !== '' && objectId !== id) {
    sendError(call, 400, errorCodes.invalidValue, `objectId ${objectId} does not match ${id}.`);
    return false;
  }
  return true;
}

/** `DELETE {id}?force=`: an object a firewall rule uses goes only with force=true (400 otherwise). */
export function deleteGroupingObject(call: SimCall, objectId: string, remove: () => void): void {
  const force = readForce(call);
  if (force === undefined) return;
  const user = referencedBy(call.state, objectId);
  if (user !== undefined && !force) {
    sendError(
      call,
      400,
      errorCodes.inUse,
      `${objectId} is in use by ${user}; delete it with force=true.`,
    );
    return;
  }
  remove();
  sendNoContent(call);
}

/** What an IP set and a service have in common. */
export interface GroupingObject {
  objectId: string;
  name: string;
  description: string;
  revision: number;
  scopeId: string;
  inheritanceAllowed: boolean;
}

/** What is an IP set's or a service's own in their routes. */
export interface GroupingKind<T extends GroupingObject, Own extends Partial<T>> {
  /** The segment after `services`, the root element of a body and the prefix of an id. */
  tag: string;
  /** The object as an error names it: "An IP set". */
  what: string;
  objects(state: NsxState): T[];
  forget(state: NsxState, object: T): void;
  /** Takes the number of the next id. */
  nextNumber(state: NsxState): number;
  xml(state: NsxState, object: T): SimElement;
  /** The kind's own fields of a body; undefined after answering 400. */
  readOwn(call: SimCall, body: SimElement): Own | undefined;
  /** A new object of these fields. */
  make(common: GroupingObject, own: Own): T;
  /** The answer to a list request of another method than GET. */
  refuseList(call: SimCall): void;
  /** True when an accepted PUT answers no body (else the object). */
  emptyPutAnswer?(call: SimCall): boolean;
}

/**
 * `GET scope/{scope}` lists, `POST {scope}` creates, `GET|PUT|DELETE {id}`;
 * `rest` follows the kind's segment.
 */
export function groupingRoutes<T extends GroupingObject, Own extends Partial<T>>(
  call: SimCall,
  rest: string[],
  kind: GroupingKind<T, Own>,
): void {
  const { state, request } = call;
  if (rest.length === 2 && rest[0] === 'scope') {
    if (request.method !== 'GET') return kind.refuseList(call);
    const scopeId = rest[1] ?? '';
    if (!state.scopes.some((s) => s.id === scopeId)) return notFound(call, scopeId);
    const items = kind
      .objects(state)
      .filter((o) => o.scopeId === scopeId)
      .map((o) => kind.xml(state, o));
    return sendXml(call, 200, el('list', items));
  }
  if (rest.length !== 1) return notFound(call, request.rawPath);
  const key = rest[0] ?? '';
  if (request.method === 'POST') return create(call, key, kind);
  if (request.method !== 'GET' && request.method !== 'PUT' && request.method !== 'DELETE') {
    return methodNotAllowed(call, ['GET', 'PUT', 'DELETE', 'POST']);
  }
  const object = kind.objects(state).find((o) => o.objectId === key);
  if (object === undefined) return notFound(call, key);
  if (request.method === 'GET') return sendXml(call, 200, kind.xml(state, object));
  if (request.method === 'PUT') return update(call, object, kind);
  deleteGroupingObject(call, object.objectId, () => kind.forget(state, object));
}

function create<T extends GroupingObject, Own extends Partial<T>>(
  call: SimCall,
  scopeId: string,
  kind: GroupingKind<T, Own>,
): void {
  const { state } = call;
  if (!state.scopes.some((s) => s.id === scopeId)) return notFound(call, scopeId);
  const body = readBody(call, kind.tag);
  if (body === undefined) return;
  const fields = readFields(call, body);
  const own = fields === undefined ? undefined : kind.readOwn(call, body);
  if (fields === undefined || own === undefined) return;
  if (kind.objects(state).some((o) => o.scopeId === scopeId && o.name === fields.name)) {
    return sendError(
      call,
      400,
      errorCodes.duplicateName,
      `${kind.what} named ${fields.name} already exists in ${scopeId}.`,
    );
  }
  const objectId = `${kind.tag}-${kind.nextNumber(state)}`;
  const common: GroupingObject = {
    objectId,
    name: fields.name,
    description: fields.description ?? '',
    revision: 0,
    scopeId,
    inheritanceAllowed: fields.inheritanceAllowed ?? false,
  };
  kind.objects(state).push(kind.make(common, own));
  sendCreated(call, objectId, `/api/2.0/services/${kind.tag}/${objectId}`);
}

function update<T extends GroupingObject, Own extends Partial<T>>(
  call: SimCall,
  object: T,
  kind: GroupingKind<T, Own>,
): void {
  const body = readBody(call, kind.tag);
  if (body === undefined || !idMatches(call, body, object.objectId)) return;
  if (!revisionMatches(call, body, object.revision)) return;
  const fields = readFields(call, body);
  const own = fields === undefined ? undefined : kind.readOwn(call, body);
  if (fields === undefined || own === undefined) return;
  Object.assign(object, own, {
    name: fields.name,
    description: fields.description ?? '',
    revision: object.revision + 1,
  });
  if (fields.inheritanceAllowed !== undefined)
    object.inheritanceAllowed = fields.inheritanceAllowed;
  if (kind.emptyPutAnswer?.(call) === true) return sendNoContent(call);
  sendXml(call, 200, kind.xml(call.state, object));
}
