/**
 * PUT and PATCH of one Policy object, as the manager does them
 * (docs/upstreams.md, NSX-T):
 *
 * - PUT creates or replaces the whole object and answers it. Replacing needs
 *   the object's current `_revision`: a stale one, or none, answers 412.
 * - PATCH creates or merges (top-level fields replace the stored ones) and
 *   answers 200 with no body. A `_revision` in a PATCH is checked the same
 *   way; a PATCH without one is not checked.
 * - Every change moves `_revision` on by one; a new object starts at 0.
 * - A system-owned object refuses every change (400).
 *
 * The stored object (housekeeping fields included) must be a closed instance
 * of its definition, else 400 with the first complaint.
 */
import { housekeeping, type PolicyObject } from './seed.ts';
import { checkBody, errorCodes, sendError, type NsxtCall } from './sim-context.ts';

export interface Place {
  collection: Map<string, PolicyObject>;
  id: string;
  /** Policy path of the parent (`/infra`, `/infra/domains/default`, …). */
  parentPath: string;
  resourceType: string;
  /** Definition the stored object must be. */
  definition: string;
}

/** Fields the manager owns: whatever a client sends in them is replaced. */
const managed = new Set([
  'path',
  'parent_path',
  'relative_path',
  'unique_id',
  'realization_id',
  'marked_for_delete',
  'overridden',
  '_create_time',
  '_create_user',
  '_last_modified_time',
  '_last_modified_user',
  '_system_owned',
  '_protection',
  '_revision',
  '_links',
  '_self',
  '_schema',
]);

function clientFields(body: PolicyObject): PolicyObject {
  return Object.fromEntries(Object.entries(body).filter(([key]) => !managed.has(key)));
}

/** Another client's change to a stored object (`foreignWrites`, `touch`). */
export function foreignChange(call: Pick<NsxtCall, 'counters'>, place: Place): void {
  const existing = place.collection.get(place.id);
  if (existing === undefined) return;
  place.collection.set(place.id, {
    ...existing,
    _revision: Number(existing['_revision']) + 1,
    _last_modified_user: 'admin',
    _last_modified_time: Date.now(),
  });
  call.counters.foreignWrites += 1;
}

/**
 * Applies a PUT or PATCH body to `place`; answers the error itself and
 * returns null when refused. `complete` fills or checks type-specific fields
 * of the object to store (answers and returns false to refuse).
 */
export function revisionedWrite(
  call: NsxtCall,
  place: Place,
  body: PolicyObject,
  mode: 'put' | 'patch',
  complete: (stored: PolicyObject, previous: PolicyObject | undefined) => boolean = () => true,
): PolicyObject | null {
  if (body['id'] !== undefined && body['id'] !== place.id) {
    sendError(
      call,
      400,
      errorCodes.invalidBody,
      `The id ${JSON.stringify(body['id'])} in the body does not match ${place.id} in the path.`,
    );
    return null;
  }
  if (body['resource_type'] !== undefined && body['resource_type'] !== place.resourceType) {
    sendError(
      call,
      400,
      errorCodes.invalidBody,
      `resource_type ${JSON.stringify(body['resource_type'])} is not ${place.resourceType}.`,
    );
    return null;
  }
  if (place.collection.get(place.id)?.['_system_owned'] === true) {
    sendError(
      call,
      400,
      errorCodes.systemOwned,
      `${place.resourceType} ${place.id} is system owned and cannot be modified.`,
    );
    return null;
  }
  const current = place.collection.get(place.id);
  // the manager reads the body before it looks at revisions: a PATCH is read merged
  const raw = mode === 'put' || current === undefined ? body : { ...current, ...body };
  if (!checkBody(call, place.definition, raw)) return null;
  const sent = body['_revision'];
  const checked = mode === 'put' || sent !== undefined;
  if (checked && place.collection.has(place.id) && call.switches.foreignWrites > 0) {
    call.switches.foreignWrites -= 1;
    foreignChange(call, place);
  }
  const previous = place.collection.get(place.id);
  if (previous !== undefined && checked && sent !== previous['_revision']) {
    call.counters.conflicts.push({
      method: call.request.method,
      path: call.request.path,
      sent: typeof sent === 'number' ? sent : null,
      current: Number(previous['_revision']),
    });
    sendError(call, 412, errorCodes.stale, 'The object was modified by somebody else.');
    return null;
  }
  const fields =
    mode === 'put' || previous === undefined
      ? clientFields(body)
      : { ...clientFields(previous), ...clientFields(body) };
  const stored = housekeeping(fields, {
    id: place.id,
    resourceType: place.resourceType,
    parentPath: place.parentPath,
    user: call.user,
    previous,
  });
  if (!complete(stored, previous)) return null;
  if (!checkBody(call, place.definition, stored)) return null;
  place.collection.set(place.id, stored);
  return stored;
}
