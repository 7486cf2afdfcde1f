import { randomUUID } from 'node:crypto';
import type { TemplateResource } from './blueprint-yaml.ts';
import { badRequest, conflict, notFound } from './errors.ts';
import { checkInputs } from './item-inputs.ts';

export type RequestStatus = 'CREATED' | 'INPROGRESS' | 'SUCCESSFUL' | 'FAILED';
export type RequestOutcome = 'SUCCESSFUL' | 'FAILED';

/** An input value that makes a request end FAILED (as `failNextRequests` does). */
export const failureTrigger = 'simulate-failure';

export interface RequestState {
  id: string;
  deploymentId: string;
  name: string;
  /** `Create` for an order, else the action's id. */
  actionId: string;
  catalogItemId?: string | undefined;
  blueprintId?: string | undefined;
  inputs: Record<string, unknown>;
  requestedBy: string;
  createdAt: number;
  totalTasks: number;
  outcome: RequestOutcome;
  resourceIds: string[];
  /** Applied once the request ends (the resources made, a power state changed). */
  effect: (outcome: RequestOutcome) => void;
  settled: boolean;
}

export interface ResourceState {
  id: string;
  name: string;
  type: string;
  createdAt: string;
  properties: Record<string, unknown>;
}

export interface DeploymentState {
  id: string;
  name: string;
  description?: string | undefined;
  projectId: string;
  catalogItemId?: string | undefined;
  catalogItemVersion?: string | undefined;
  blueprintId?: string | undefined;
  blueprintVersion?: string | undefined;
  inputs: Record<string, unknown>;
  ownedBy: string;
  createdBy: string;
  createdAt: string;
  lastUpdatedAt: string;
  lastUpdatedBy: string;
  resources: ResourceState[];
  requests: RequestState[];
}

export interface SimAction {
  /** `<resource type>.<name>`, as vRA 8 names resource actions. */
  id: string;
  name: string;
  displayName: string;
  description: string;
  schema: Record<string, unknown>;
  valid: boolean;
}

const machineTypes = new Set(['Cloud.vSphere.Machine', 'Cloud.Machine']);

/** Deployments, their resources and requests, moved along on the simulator's clock. */
export class Deployments {
  readonly all: DeploymentState[] = [];
  readonly requests = new Map<string, RequestState>();
  stepMs: number;
  #failNext = 0;
  readonly #now: () => number;

  constructor(now: () => number, stepMs: number) {
    this.#now = now;
    this.stepMs = stepMs;
  }

  failNextRequests(times: number): void {
    this.#failNext += times;
  }

  #outcome(inputs: Record<string, unknown>): RequestOutcome {
    if (Object.values(inputs).includes(failureTrigger)) return 'FAILED';
    if (this.#failNext > 0) {
      this.#failNext--;
      return 'FAILED';
    }
    return 'SUCCESSFUL';
  }

  /** A request's status now: CREATED for one step, INPROGRESS for one, then its outcome. */
  status(request: RequestState): RequestStatus {
    const elapsed = this.#now() - request.createdAt;
    if (elapsed < this.stepMs) return 'CREATED';
    if (elapsed < 2 * this.stepMs) return 'INPROGRESS';
    return request.outcome;
  }

  /** Applies the effects of every request that has ended since the last call. */
  settle(): void {
    for (const request of this.requests.values()) {
      if (request.settled || this.status(request) !== request.outcome) continue;
      request.settled = true;
      request.effect(request.outcome);
    }
  }

  get(id: string): DeploymentState {
    const deployment = this.all.find((known) => known.id === id);
    if (deployment === undefined) throw notFound('Deployment', id);
    return deployment;
  }

  request(id: string): RequestState {
    const request = this.requests.get(id);
    if (request === undefined) throw notFound('Request', id);
    return request;
  }

  inProgress(deployment: DeploymentState): RequestState[] {
    return deployment.requests.filter((request) => !request.settled);
  }

  order(fields: {
    name: string;
    description?: string | undefined;
    projectId: string;
    catalogItemId: string;
    version: string;
    inputs: Record<string, unknown>;
    resources: readonly TemplateResource[];
    user: string;
  }): DeploymentState {
    if (this.all.some((known) => known.name === fields.name))
      throw badRequest(`Deployment with name '${fields.name}' already exists`);
    const at = new Date(this.#now()).toISOString();
    const deployment: DeploymentState = {
      id: randomUUID(),
      name: fields.name,
      description: fields.description,
      projectId: fields.projectId,
      catalogItemId: fields.catalogItemId,
      catalogItemVersion: fields.version,
      blueprintId: fields.catalogItemId,
      blueprintVersion: fields.version,
      inputs: fields.inputs,
      ownedBy: fields.user,
      createdBy: fields.user,
      createdAt: at,
      lastUpdatedAt: at,
      lastUpdatedBy: fields.user,
      resources: [],
      requests: [],
    };
    this.all.push(deployment);
    this.#submit(deployment, {
      name: 'Create',
      actionId: 'Create',
      catalogItemId: fields.catalogItemId,
      blueprintId: fields.catalogItemId,
      inputs: fields.inputs,
      user: fields.user,
      totalTasks: 3,
      resourceIds: [],
      effect: (outcome) => {
        if (outcome === 'FAILED') return;
        deployment.resources = fields.resources.map((resource, index) => ({
          id: randomUUID(),
          name: resource.name,
          type: resource.type,
          createdAt: new Date(this.#now()).toISOString(),
          properties: machineTypes.has(resource.type)
            ? {
                powerState: 'ON',
                cpuCount: fields.inputs['cpuCount'] ?? 1,
                totalMemoryMB: 2048,
                hostname: `${typeof fields.inputs['hostname'] === 'string' ? fields.inputs['hostname'] : deployment.name}-${index + 1}`,
                address: `10.0.${this.all.length % 250}.${10 + index}`,
              }
            : {},
        }));
      },
    });
    return deployment;
  }

  actionsOf(resource: ResourceState): SimAction[] {
    if (!machineTypes.has(resource.type)) return [];
    const on = resource.properties['powerState'] === 'ON';
    const action = (
      name: string,
      displayName: string,
      description: string,
      valid: boolean,
      schema: Record<string, unknown> = { type: 'object', properties: {} },
    ): SimAction => ({
      id: `${resource.type}.${name}`,
      name,
      displayName,
      description,
      schema,
      valid,
    });
    return [
      action('PowerOff', 'Power Off', 'Power off the machine', on),
      action('PowerOn', 'Power On', 'Power on the machine', !on),
      action('Reboot', 'Reboot', 'Reboot the machine', on),
      action('Resize', 'Resize', 'Change the CPUs and memory of the machine', true, {
        type: 'object',
        required: ['cpuCount'],
        properties: {
          cpuCount: { type: 'integer', title: 'CPUs', minimum: 1, maximum: 8 },
          totalMemoryMB: { type: 'integer', title: 'Memory (MB)', minimum: 1024, maximum: 65536 },
        },
      }),
    ];
  }

  /** A resource of any deployment, with its deployment. */
  resourceById(resourceId: string): { deployment: DeploymentState; resource: ResourceState } {
    for (const deployment of this.all) {
      const resource = deployment.resources.find((known) => known.id === resourceId);
      if (resource !== undefined) return { deployment, resource };
    }
    throw notFound('Resource', resourceId);
  }

  resource(deployment: DeploymentState, resourceId: string): ResourceState {
    const resource = deployment.resources.find((known) => known.id === resourceId);
    if (resource === undefined) throw notFound('Resource', resourceId);
    return resource;
  }

  runAction(
    deployment: DeploymentState,
    resource: ResourceState,
    body: { actionId: string; inputs?: unknown; reason?: string | undefined },
    user: string,
  ): RequestState {
    const action = this.actionsOf(resource).find((known) => known.id === body.actionId);
    if (action === undefined) throw notFound('Action', body.actionId);
    if (this.inProgress(deployment).length > 0)
      throw conflict(`Deployment ${deployment.id} has a request in progress`);
    if (!action.valid)
      throw badRequest(`Action ${action.id} is not valid for the resource's current state`);
    const inputs = checkInputs(action.schema, body.inputs);
    return this.#submit(deployment, {
      name: action.displayName,
      actionId: action.id,
      inputs,
      user,
      totalTasks: 1,
      resourceIds: [resource.id],
      effect: (outcome) => {
        if (outcome === 'FAILED') return;
        if (action.name === 'PowerOff') resource.properties['powerState'] = 'OFF';
        if (action.name === 'PowerOn') resource.properties['powerState'] = 'ON';
        if (action.name === 'Resize') {
          resource.properties['cpuCount'] = inputs['cpuCount'];
          if (inputs['totalMemoryMB'] !== undefined)
            resource.properties['totalMemoryMB'] = inputs['totalMemoryMB'];
        }
      },
    });
  }

  #submit(
    deployment: DeploymentState,
    fields: {
      name: string;
      actionId: string;
      catalogItemId?: string;
      blueprintId?: string;
      inputs: Record<string, unknown>;
      user: string;
      totalTasks: number;
      resourceIds: string[];
      effect: (outcome: RequestOutcome) => void;
    },
  ): RequestState {
    const request: RequestState = {
      id: randomUUID(),
      deploymentId: deployment.id,
      name: fields.name,
      actionId: fields.actionId,
      catalogItemId: fields.catalogItemId,
      blueprintId: fields.blueprintId,
      inputs: fields.inputs,
      requestedBy: fields.user,
      createdAt: this.#now(),
      totalTasks: fields.totalTasks,
      outcome: this.#outcome(fields.inputs),
      resourceIds: fields.resourceIds,
      effect: (outcome) => {
        fields.effect(outcome);
        deployment.lastUpdatedAt = new Date(this.#now()).toISOString();
        deployment.lastUpdatedBy = fields.user;
      },
      settled: false,
    };
    this.requests.set(request.id, request);
    deployment.requests.push(request);
    return request;
  }
}
