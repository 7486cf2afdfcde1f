/** What IP sets and services share in the simulator: the head of their XML, field checks, in-use checks. */
import { errorCodes, readForce, sendError, sendNoContent, type SimCall } from './sim-context.ts';
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
