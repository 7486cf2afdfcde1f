/**
 * The routes of one Policy collection: `GET` of the list (paged) and
 * `GET | PUT | PATCH | DELETE` of one member. Deleting what is not there
 * answers 200, as Policy deletes do.
 */
import type { PolicyObject } from './seed.ts';
import { revisionedWrite } from './revisioned-write.ts';
import {
  methodNotAllowed,
  notFound,
  readBody,
  sendModel,
  sendOk,
  sendPage,
  type NsxtCall,
} from './sim-context.ts';

export interface Collection {
  members: Map<string, PolicyObject>;
  parentPath: string;
  resourceType: string;
  definition: string;
  listDefinition: string;
  /** GET only (the simulator does not model changing these). */
  readOnly?: boolean;
  /** Type-specific filling and checks of an object about to be stored (answers when refusing). */
  complete?: (call: NsxtCall, stored: PolicyObject, previous: PolicyObject | undefined) => boolean;
  /** Checks before a delete (answers when refusing). */
  beforeDelete?: (call: NsxtCall, existing: PolicyObject) => boolean;
  /** What GET answers for a stored member (default: as stored). */
  view?: (stored: PolicyObject) => PolicyObject;
  /** Runs after a delete. */
  afterDelete?: (id: string) => void;
}

export function collectionRoutes(call: NsxtCall, collection: Collection, rest: string[]): void {
  const method = call.request.method;
  const view = collection.view ?? ((stored: PolicyObject) => stored);
  if (rest.length === 0) {
    if (method !== 'GET') return methodNotAllowed(call);
    return sendPage(call, collection.listDefinition, [...collection.members.values()].map(view));
  }
  if (rest.length !== 1) return notFound(call);
  const id = rest[0] ?? '';
  const existing = collection.members.get(id);
  if (method === 'GET') {
    if (existing === undefined) return notFound(call);
    return sendModel(call, collection.definition, view(existing));
  }
  if (collection.readOnly === true) return methodNotAllowed(call);
  if (method === 'DELETE') {
    if (existing !== undefined) {
      if (collection.beforeDelete !== undefined && !collection.beforeDelete(call, existing)) return;
      collection.members.delete(id);
      collection.afterDelete?.(id);
    }
    return sendOk(call);
  }
  if (method !== 'PUT' && method !== 'PATCH') return methodNotAllowed(call);
  const body = readBody(call);
  if (body === null) return;
  const complete = collection.complete;
  const stored = revisionedWrite(
    call,
    {
      collection: collection.members,
      id,
      parentPath: collection.parentPath,
      resourceType: collection.resourceType,
      definition: collection.definition,
    },
    body,
    method === 'PUT' ? 'put' : 'patch',
    complete === undefined ? undefined : (object, previous) => complete(call, object, previous),
  );
  if (stored === null) return;
  if (method === 'PUT') return sendModel(call, collection.definition, view(stored));
  sendOk(call);
}
