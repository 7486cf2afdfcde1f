/**
 * `/api/2.0/services/ipset/...`: `GET scope/{scope}` lists, `POST {scope}`
 * creates, `GET|PUT|DELETE {id}`. The documented-wrong list without the
 * `scope` segment reads as an unknown IP set: 404.
 */
import { commonHead, groupingRoutes, type GroupingKind } from './grouping-common.ts';
import { errorCodes, methodNotAllowed, sendError, type SimCall } from './sim-context.ts';
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

const ipSets: GroupingKind<SimIpSet, { value: string }> = {
  tag: 'ipset',
  what: 'An IP set',
  objects: (state) => state.ipSets,
  forget: (state, ipSet) => {
    state.ipSets = state.ipSets.filter((s) => s !== ipSet);
  },
  nextNumber: (state) => state.nextIpSet++,
  xml: ipSetXml,
  readOwn(call, body) {
    const value = kidText(body, 'value') ?? '';
    if (isIpSetValue(value)) return { value };
    sendError(call, 400, errorCodes.invalidValue, `Invalid IP address value ${value}.`);
    return undefined;
  },
  make: (common, { value }) => ({ ...common, value, readOnly: false }),
  refuseList: (call) => methodNotAllowed(call, ['GET']),
  emptyPutAnswer: (call) => call.switches.emptyIpSetPutAnswer,
};

/** `rest` follows `ipset`. */
export function ipSetRoutes(call: SimCall, rest: string[]): void {
  groupingRoutes(call, rest, ipSets);
}
