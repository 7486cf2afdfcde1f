import type { ServerResponse } from 'node:http';
import { sendEmpty, sendJson, type RecordedRequest } from '../../sim-server.ts';
import type { ConsumerState, SimResource } from './consumer.ts';
import { provisioningRequestType, resourceRequestType } from './consumer-seed.ts';
import { requestBodyProblem } from './consumer-validate.ts';
import { originOf, parseBody, sendList, sendsJson } from './json-exchange.ts';
import { vraCodes, vraErrorBody } from './vra-errors.ts';

const itemViewFields = ['catalogItemId', 'name'];
const requestFields = ['id', 'state', 'dateSubmitted', 'dateCreated', 'requestNumber'];
const resourceFields = ['id', 'name'];

/** What vRA answers to a submitted body it refuses: 400, code 10101, the detail in the message. */
function invalidRequest(detail: string) {
  return vraErrorBody(vraCodes.invalidArgument, `Invalid argument: ${detail}`, detail);
}

function methodNotAllowed(response: ServerResponse, allow: string): void {
  sendEmpty(response, 405, { allow });
}

function notFound(response: ServerResponse, code: number, what: string, id: string): void {
  const message = `Unable to find the specified ${what} in the service catalog: ${id}.`;
  sendJson(response, 404, vraErrorBody(code, message));
}

/**
 * `/catalog-service/api/consumer/...` for the user the bearer token was issued
 * to: entitled items, templates, submitted requests and their resources.
 * `rest` is the path after `consumer`.
 */
export function consumerCall(
  consumer: ConsumerState,
  user: string,
  request: RecordedRequest,
  response: ServerResponse,
  rest: readonly string[],
): void {
  const [a, b, c, d, e, f] = rest;
  const origin = originOf(request);

  if (a === 'entitledCatalogItemViews' && rest.length === 1) {
    if (request.method !== 'GET') return methodNotAllowed(response, 'GET');
    const views = consumer.items
      .filter((item) => consumer.entitled(user, item))
      .map((item) => consumer.view(item, origin, user));
    return sendList(request, response, views, itemViewFields);
  }

  if (a === 'entitledCatalogItems' && b !== undefined && c === 'requests') {
    const item = consumer.item(b);
    if (item === undefined)
      return notFound(response, vraCodes.catalogItemNotFound, 'catalog item', b);
    if (!consumer.entitled(user, item)) {
      // The real status and code for a caller without entitlement are not recorded.
      return sendJson(
        response,
        403,
        vraErrorBody(
          vraCodes.notEntitled,
          `User ${user} is not entitled to request the catalog item ${b}.`,
        ),
      );
    }
    const template = consumer.template(item, user);
    if (d === 'template' && rest.length === 4) {
      if (request.method !== 'GET') return methodNotAllowed(response, 'GET');
      return sendJson(response, 200, template);
    }
    if (rest.length === 3) {
      if (request.method !== 'POST') return methodNotAllowed(response, 'POST');
      const body = submittedBody(request, response, template, [
        'type',
        'catalogItemId',
        'requestedFor',
        'businessGroupId',
      ]);
      if (body === undefined) return;
      if (body['type'] !== provisioningRequestType) {
        return sendJson(response, 400, invalidRequest(`type must be ${provisioningRequestType}.`));
      }
      const groups = consumer.groupsOf(user, item);
      if (!groups.some((group) => group.id === body['businessGroupId'])) {
        return sendJson(
          response,
          400,
          invalidRequest(
            `business group ${String(body['businessGroupId'])} is not entitled to the catalog item ${item.id}.`,
          ),
        );
      }
      const created = consumer.submitItemRequest(user, item, body);
      const location = `${origin}/catalog-service/api/consumer/requests/${created.id}`;
      if (consumer.emptySubmitAnswers) return sendEmpty(response, 201, { location });
      return sendJson(response, 201, consumer.requestBody(created), { location });
    }
  }

  if (a === 'requests' && rest.length === 1) {
    if (request.method !== 'GET') return methodNotAllowed(response, 'GET');
    const bodies = consumer.requests(user).map((r) => consumer.requestBody(r));
    return sendList(request, response, bodies, requestFields);
  }

  if (a === 'requests' && b !== undefined && (rest.length === 2 || c === 'resources')) {
    if (request.method !== 'GET') return methodNotAllowed(response, 'GET');
    const found = consumer.request(b, user);
    if (found === undefined) return notFound(response, vraCodes.notFound, 'request', b);
    if (rest.length === 2) return sendJson(response, 200, consumer.requestBody(found));
    if (rest.length === 3) {
      const bodies = consumer.resourcesOf(found).map((r) => consumer.resourceBody(r));
      return sendList(request, response, bodies, resourceFields);
    }
  }

  if (a === 'resources' && b !== undefined) {
    const resource = consumer.resource(b, user);
    if (resource === undefined) return notFound(response, vraCodes.notFound, 'resource', b);
    if (rest.length === 2) {
      if (request.method !== 'GET') return methodNotAllowed(response, 'GET');
      return sendJson(response, 200, consumer.resourceBody(resource));
    }
    if (c === 'actions' && d !== undefined && e === 'requests') {
      return actionCall(
        consumer,
        user,
        request,
        response,
        resource,
        d,
        rest.length === 6 && f === 'template',
      );
    }
  }

  sendJson(
    response,
    404,
    vraErrorBody(vraCodes.notFound, 'Not found.', `No resource at ${request.path}.`),
  );
}

function actionCall(
  consumer: ConsumerState,
  user: string,
  request: RecordedRequest,
  response: ServerResponse,
  resource: SimResource,
  actionId: string,
  template: boolean,
): void {
  const spec = consumer.operations(resource).find((op) => op.id === actionId);
  if (spec === undefined || spec.type !== 'ACTION') {
    const message = `The action ${actionId} is not available on the resource ${resource.id}.`;
    return sendJson(response, 404, vraErrorBody(vraCodes.notFound, message));
  }
  const actionTemplate = consumer.actionTemplate(resource, spec);
  if (template) {
    if (request.method !== 'GET') return methodNotAllowed(response, 'GET');
    return sendJson(response, 200, actionTemplate);
  }
  if (request.method !== 'POST') return methodNotAllowed(response, 'POST');
  const body = submittedBody(request, response, actionTemplate, ['type', 'resourceId', 'actionId']);
  if (body === undefined) return;
  if (body['type'] !== resourceRequestType) {
    return sendJson(response, 400, invalidRequest(`type must be ${resourceRequestType}.`));
  }
  const created = consumer.submitActionRequest(user, resource, spec, body);
  // A resource action answers 201 with no body: the id is the Location's last segment.
  sendEmpty(response, 201, {
    location: `${originOf(request)}/catalog-service/api/consumer/requests/${created.id}`,
  });
}

/** The POSTed body when it is JSON shaped like the template; otherwise answers 415/400 and undefined. */
function submittedBody(
  request: RecordedRequest,
  response: ServerResponse,
  template: Record<string, unknown>,
  required: readonly string[],
): Record<string, unknown> | undefined {
  if (!sendsJson(request.headers)) {
    sendJson(response, 415, invalidRequest('Content-Type must be application/json.'));
    return undefined;
  }
  const parsed = parseBody(request);
  if (!parsed.ok) {
    sendJson(response, 400, invalidRequest('malformed JSON request body.'));
    return undefined;
  }
  const problem = requestBodyProblem(parsed.value, template, required);
  if (problem !== undefined) {
    sendJson(response, 400, invalidRequest(problem));
    return undefined;
  }
  return parsed.value as Record<string, unknown>;
}
