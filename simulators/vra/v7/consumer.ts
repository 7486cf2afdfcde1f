import { randomUUID } from 'node:crypto';
import { isObject } from './catalog.ts';
import { resourceBody, typedEntries, type SimResource } from './consumer-bodies.ts';

export type { SimResource };
import {
  blueprintServiceId,
  databaseAdministratorsGroup,
  deploymentActions,
  entitledView,
  machineOperations,
  requestTemplate,
  resourceRequestType,
  seedEntitledItems,
  type SimActionSpec,
  type SimBusinessGroup,
  type SimEntitledItem,
} from './consumer-seed.ts';
import { membershipsOf, type SimUser } from '../users.ts';

type Json = Record<string, unknown>;

/** How a request ends once its steps have run. */
export type SimRequestOutcome = 'SUCCESSFUL' | 'FAILED';

interface SimRequest {
  id: string;
  requestNumber: number;
  owner: string;
  /** When it was submitted: its states advance from here. */
  startedAt: number;
  /** Its dateSubmitted: strictly increasing, so that newest-first is well defined. */
  submittedAt: number;
  outcome: SimRequestOutcome;
  description: string | null;
  reasons: string | null;
  requestedFor: string;
  group: SimBusinessGroup | undefined;
  data: Json;
  /** A catalog item request... */
  item?: SimEntitledItem;
  /** ...or a resource action request. */
  action?: { resource: SimResource; spec: SimActionSpec };
  /** Set once the request reached its final state and acted. */
  done: boolean;
  resources: SimResource[];
}

export interface ConsumerOptions {
  tenant: string;
  /** The service account: member of every group, owner of the seeded request, entitled to the restricted item. */
  serviceUser: string;
  /** The other accounts; those given with groups see only their groups' items, the others every group's. */
  users?: readonly SimUser[] | undefined;
  now: () => number;
  stepMs: number;
  items?: readonly SimEntitledItem[] | undefined;
}

/** Ids of the seeded (already successful) request and what it built, for examples and tests. */
export const seededRequest = {
  requestId: 'f0e1d2c3-b4a5-4968-8778-695a4b3c2d01',
  deploymentId: 'f0e1d2c3-b4a5-4968-8778-695a4b3c2d02',
  machineId: 'f0e1d2c3-b4a5-4968-8778-695a4b3c2d03',
} as const;

const stateSteps = 2;

/** The consumer side of the simulated vRA: entitlements, templates, requests that advance, resources. */
export class ConsumerState {
  readonly items: SimEntitledItem[];
  readonly #requests: SimRequest[] = [];
  readonly #resources = new Map<string, SimResource>();
  readonly #tenant: string;
  readonly #memberships: Map<string, readonly string[]>;
  readonly #now: () => number;
  stepMs: number;
  defaultOutcome: SimRequestOutcome = 'SUCCESSFUL';
  /** Catalog item submits answer 201 with only a Location (vRA's answer to actions). */
  emptySubmitAnswers = false;
  #failNext = 0;
  #lastSubmitted = 0;
  #machineCount = 0;

  constructor(options: ConsumerOptions) {
    this.#tenant = options.tenant;
    this.#now = options.now;
    this.stepMs = options.stepMs;
    this.#memberships = membershipsOf(options.users ?? []);
    // The service account sees every group whatever `users` says of it.
    this.#memberships.delete(options.serviceUser);
    const administrators = [...this.#memberships]
      .filter(([, groups]) => groups.includes(databaseAdministratorsGroup.id))
      .map(([user]) => user);
    this.items = structuredClone([
      ...(options.items ?? seedEntitledItems([options.serviceUser, ...administrators])),
    ]);
    this.#seed(options.serviceUser);
  }

  /** The next `times` requests submitted fail. */
  failNextRequests(times: number): void {
    this.#failNext += times;
  }

  item(id: string): SimEntitledItem | undefined {
    return this.items.find((item) => item.id === id);
  }

  /** The item as `entitledCatalogItemViews` lists it to `user`. */
  view(item: SimEntitledItem, origin: string, user: string): Json {
    return entitledView(item, origin, this.#tenant, this.groupsOf(user, item));
  }

  /** The business groups of the item `user` is a member of. */
  groupsOf(user: string, item: SimEntitledItem): SimBusinessGroup[] {
    const memberOf = this.#memberships.get(user);
    return memberOf === undefined
      ? item.groups
      : item.groups.filter((group) => memberOf.includes(group.id));
  }

  entitled(user: string, item: SimEntitledItem): boolean {
    if (item.entitledUsers !== undefined && !item.entitledUsers.includes(user)) return false;
    return !this.#memberships.has(user) || this.groupsOf(user, item).length > 0;
  }

  template(item: SimEntitledItem, user: string): Json {
    return requestTemplate(item, user, this.groupsOf(user, item));
  }

  /** The template of an action on a resource. */
  actionTemplate(resource: SimResource, spec: SimActionSpec): Json {
    return {
      type: resourceRequestType,
      resourceId: resource.id,
      actionId: spec.id,
      description: null,
      reasons: null,
      data: structuredClone(spec.data),
    };
  }

  submitItemRequest(user: string, item: SimEntitledItem, body: Json): SimRequest {
    const groupId = body['businessGroupId'];
    return this.#submit(user, body, {
      item,
      group: this.groupsOf(user, item).find((g) => g.id === groupId),
    });
  }

  submitActionRequest(user: string, resource: SimResource, spec: SimActionSpec, body: Json) {
    return this.#submit(user, body, { action: { resource, spec }, group: resource.group });
  }

  /** A request of `user` (advanced to now), or undefined. */
  request(id: string, user: string): SimRequest | undefined {
    const request = this.#requests.find((r) => r.id === id && r.owner === user);
    if (request !== undefined) this.#advance(request);
    return request;
  }

  /** The requests of `user`, advanced to now. */
  requests(user: string): SimRequest[] {
    const own = this.#requests.filter((r) => r.owner === user);
    for (const request of own) this.#advance(request);
    return own;
  }

  /** A live resource of `user`, or undefined. */
  resource(id: string, user: string): SimResource | undefined {
    for (const request of this.#requests) if (request.owner === user) this.#advance(request);
    const resource = this.#resources.get(id);
    return resource !== undefined && resource.owner === user && !resource.deleted
      ? resource
      : undefined;
  }

  /** The actions a resource offers now. */
  operations(resource: SimResource): SimActionSpec[] {
    return resource.kind === 'machine'
      ? machineOperations(resource.poweredOn)
      : [deploymentActions.destroy];
  }

  /** Wire body of a request: `CatalogItemRequest` or `ResourceActionRequest`. */
  requestBody(request: SimRequest): Json {
    const step = this.#step(request);
    const phase = step === 0 ? 'SUBMITTED' : step === 1 ? 'IN_PROGRESS' : request.outcome;
    const final = step >= stateSteps;
    const submitted = new Date(request.submittedAt).toISOString();
    const completed = final
      ? new Date(
          Math.max(request.submittedAt, request.startedAt + stateSteps * this.stepMs),
        ).toISOString()
      : null;
    const status = statusOf(phase);
    return {
      '@type': request.item === undefined ? 'ResourceActionRequest' : 'CatalogItemRequest',
      id: request.id,
      iconId: 'composition.blueprint.png',
      version: step + 1,
      requestNumber: request.requestNumber,
      state: status.state,
      description: request.description,
      reasons: request.reasons,
      requestedFor: request.requestedFor,
      requestedBy: request.owner,
      organization: {
        tenantRef: this.#tenant,
        tenantLabel: this.#tenant,
        subtenantRef: request.group?.id ?? null,
        subtenantLabel: request.group?.name ?? null,
      },
      requestorEntitlementId: '93f0fc4b-de67-4a03-a32e-f689ce016ca4',
      preApprovalId: null,
      postApprovalId: null,
      dateCreated: submitted,
      lastUpdated: completed ?? submitted,
      dateSubmitted: submitted,
      dateApproved: step >= 1 ? submitted : null,
      dateCompleted: completed,
      quote: {},
      requestCompletion: final
        ? {
            requestCompletionState: request.outcome,
            completionDetails:
              request.outcome === 'SUCCESSFUL'
                ? 'Request succeeded.'
                : 'Simulated failure: no reservation is available to allocate the machine.',
          }
        : null,
      requestData: { entries: typedEntries(request.data, 'provider-') },
      retriesRemaining: 3,
      requestedItemName: request.item?.name ?? request.action?.spec.name ?? null,
      requestedItemDescription: request.item?.description ?? null,
      components: null,
      successful: final && request.outcome === 'SUCCESSFUL',
      final,
      stateName: status.stateName,
      ...(request.item === undefined
        ? {
            resourceRef: { id: request.action?.resource.id, label: request.action?.resource.name },
            resourceActionRef: { id: request.action?.spec.id, label: request.action?.spec.name },
          }
        : {
            catalogItemRef: { id: request.item.id, label: request.item.name },
            catalogItemProviderBinding: {
              bindingId: `${this.#tenant}!::!${request.item.blueprint}`,
              providerRef: { id: blueprintServiceId, label: 'Blueprint Service' },
            },
          }),
      phase: status.phase,
      executionStatus: final ? 'STOPPED' : 'STARTED',
      waitingStatus: step === 1 ? 'WAITING_FOR_PROVIDER' : 'NOT_WAITING',
      approvalStatus: step === 0 ? 'PENDING' : 'PRE_APPROVED',
    };
  }

  /** Wire body of a resource: `CatalogResource`, shaped like the captured ones. */
  resourceBody(resource: SimResource): Json {
    return resourceBody(resource, this.#tenant, this.operations(resource));
  }

  /** The resources a request built (live ones only), deployment first. */
  resourcesOf(request: SimRequest): SimResource[] {
    return request.resources.filter((r) => !r.deleted);
  }

  #submit(
    user: string,
    body: Json,
    target: Pick<SimRequest, 'group'> & Partial<Pick<SimRequest, 'item' | 'action'>>,
  ): SimRequest {
    const now = this.#now();
    const submittedAt = Math.max(now, this.#lastSubmitted + 1);
    this.#lastSubmitted = submittedAt;
    const outcome = this.#failNext > 0 ? 'FAILED' : this.defaultOutcome;
    if (this.#failNext > 0) this.#failNext--;
    const request: SimRequest = {
      id: randomUUID(),
      requestNumber: this.#requests.length + 1,
      owner: user,
      startedAt: now,
      submittedAt,
      outcome,
      description: typeof body['description'] === 'string' ? body['description'] : null,
      reasons: typeof body['reasons'] === 'string' ? body['reasons'] : null,
      requestedFor: typeof body['requestedFor'] === 'string' ? body['requestedFor'] : user,
      data: isObject(body['data']) ? body['data'] : {},
      done: false,
      resources: [],
      ...target,
    };
    this.#requests.push(request);
    return request;
  }

  /** 0: SUBMITTED, 1: IN_PROGRESS, 2: final. */
  #step(request: SimRequest): number {
    const elapsed = Math.max(0, this.#now() - request.startedAt);
    return Math.min(stateSteps, Math.floor(elapsed / this.stepMs));
  }

  /** Runs what a request does once it reached its final state. */
  #advance(request: SimRequest): void {
    if (request.done) return;
    if (this.#step(request) < stateSteps) return;
    request.done = true;
    if (request.outcome !== 'SUCCESSFUL') return;
    if (request.item !== undefined) this.#provision(request, request.item);
    if (request.action !== undefined) act(request.action.resource, request.action.spec);
  }

  #provision(request: SimRequest, item: SimEntitledItem, ids?: readonly string[]): void {
    const date = new Date(request.startedAt + stateSteps * this.stepMs).toISOString();
    const base = {
      owner: request.owner,
      requestId: request.id,
      description: request.description,
      parent: undefined,
      children: [],
      item,
      group: request.group,
      dateCreated: date,
      poweredOn: true,
      deleted: false,
    };
    const deployment: SimResource = {
      ...base,
      id: ids?.[0] ?? randomUUID(),
      name: `${item.blueprint}-${String(request.requestNumber).padStart(8, '0')}`,
      kind: 'deployment',
    };
    const resources = [deployment];
    const instances = request.data['_number_of_instances'];
    const count =
      typeof instances === 'number' && Number.isInteger(instances) && instances >= 1
        ? Math.min(instances, 10)
        : 1;
    for (const component of item.components) {
      const declared = request.data[component.name];
      const data = isObject(declared) && isObject(declared['data']) ? declared['data'] : {};
      const number = (key: string, fallback: number): number => {
        const value = data[key];
        return typeof value === 'number' ? value : fallback;
      };
      const prefix = typeof data['machine_prefix'] === 'string' ? data['machine_prefix'] : 'dev-';
      for (let i = 0; i < count; i++) {
        this.#machineCount++;
        const machine: SimResource = {
          ...base,
          id: ids?.[resources.length] ?? randomUUID(),
          name: `${prefix}${String(this.#machineCount).padStart(4, '0')}`,
          kind: 'machine',
          description: null,
          item: undefined,
          parent: deployment,
          children: [],
          machine: {
            cpu: number('cpu', component.cpu),
            memory: number('memory', component.memory),
            storage: number('storage', component.storage),
            component: component.name,
            osType: component.osType,
          },
        };
        deployment.children.push(machine);
        resources.push(machine);
      }
    }
    for (const resource of resources) this.#resources.set(resource.id, resource);
    request.resources = resources;
  }

  #seed(user: string): void {
    const item = this.items[0];
    if (item === undefined) return;
    const template = requestTemplate(item, user);
    const request: SimRequest = {
      id: seededRequest.requestId,
      requestNumber: 1,
      owner: user,
      startedAt: Date.parse('2023-06-01T10:00:00.000Z'),
      submittedAt: Date.parse('2023-06-01T10:00:00.000Z'),
      outcome: 'SUCCESSFUL',
      description: 'CentOS for the build farm',
      reasons: null,
      requestedFor: user,
      group: item.groups[0],
      data: isObject(template['data']) ? template['data'] : {},
      item,
      done: true,
      resources: [],
    };
    this.#requests.push(request);
    this.#provision(request, item, [seededRequest.deploymentId, seededRequest.machineId]);
  }
}

/** What a finished action did to its resource. */
function act(resource: SimResource, spec: SimActionSpec): void {
  switch (spec.bindingId) {
    case 'Infrastructure.Machine.Action.PowerOff':
    case 'Infrastructure.Machine.Action.Shutdown':
      resource.poweredOn = false;
      break;
    case 'Infrastructure.Machine.Action.PowerOn':
      resource.poweredOn = true;
      break;
    case 'Infrastructure.Virtual.Action.Destroy':
    case 'composition.resource.action.deployment.destroy':
      resource.deleted = true;
      for (const child of resource.children) child.deleted = true;
      break;
    default:
      break;
  }
}

function statusOf(phase: string): { state: string; phase: string; stateName: string } {
  switch (phase) {
    case 'SUBMITTED':
      return { state: 'SUBMITTED', phase: 'PENDING_PRE_APPROVAL', stateName: 'Submitted' };
    case 'IN_PROGRESS':
      return { state: 'IN_PROGRESS', phase: 'IN_PROGRESS', stateName: 'In Progress' };
    case 'FAILED':
      return { state: 'FAILED', phase: 'FAILED', stateName: 'Failed' };
    default:
      return { state: 'SUCCESSFUL', phase: 'SUCCESSFUL', stateName: 'Successful' };
  }
}
