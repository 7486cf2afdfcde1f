/**
 * `/api/2.0/services/application/...`: `GET scope/{scope}` lists, `POST
 * {scope}` creates (the documented-wrong `POST scope/{scope}` is 404),
 * `GET|PUT|DELETE {id}`.
 */
import { commonHead, groupingRoutes, type GroupingKind } from './grouping-common.ts';
import { errorCodes, notFound, sendError, type SimCall } from './sim-context.ts';
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

const applications: GroupingKind<SimApplication, ElementFields> = {
  tag: 'application',
  what: 'A service',
  objects: (state) => state.applications,
  forget: (state, app) => {
    state.applications = state.applications.filter((a) => a !== app);
  },
  nextNumber: (state) => state.nextApplication++,
  xml: applicationXml,
  readOwn: readElement,
  make: (common, element) => ({ ...common, ...element }),
  // POST .../application/scope/{moref} is the documented-wrong create path.
  refuseList: (call) => notFound(call, call.request.rawPath),
};

/** `rest` follows `application`. */
export function applicationRoutes(call: SimCall, rest: string[]): void {
  groupingRoutes(call, rest, applications);
}
