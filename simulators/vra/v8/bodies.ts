/** The wire bodies of the simulator's state, shaped by the specification's definitions. */
import type { BlueprintState, BlueprintVersionState, Blueprints } from './blueprints.ts';
import type { Catalog, CatalogItemState, CatalogSourceState, EntitlementState } from './catalog.ts';
import type {
  DeploymentState,
  Deployments,
  RequestState,
  ResourceState,
  SimAction,
} from './deployments.ts';
import type { Vra8Project } from './seed.ts';

export const orgId = '2c1d3f4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f';

export function projectBody(
  project: Vra8Project,
  members: readonly string[],
): Record<string, unknown> {
  return {
    id: project.id,
    name: project.name,
    description: project.description,
    orgId,
    members: members.map((email) => ({ email, type: 'user' })),
    administrators: [],
    viewers: [],
    zones: [],
    sharedResources: true,
    operationTimeout: 0,
    _links: { self: { href: `/iaas/api/projects/${project.id}` } },
  };
}

const blueprintType = { id: 'com.vmw.blueprint', name: 'VMware Cloud Templates' };

export function catalogItemBody(
  catalog: Catalog,
  item: CatalogItemState,
  options: { schema: boolean; projects?: readonly Vra8Project[] | undefined },
): Record<string, unknown> {
  const projectIds = catalog.projectsOf(item);
  const latest = item.versions.at(-1);
  return {
    id: item.id,
    name: item.name,
    ...(item.description === undefined ? {} : { description: item.description }),
    sourceId: item.sourceId,
    sourceName: item.sourceName,
    type: blueprintType,
    projectIds,
    ...(options.projects === undefined
      ? {}
      : {
          projects: options.projects
            .filter((project) => projectIds.includes(project.id))
            .map((project) => ({ id: project.id, name: project.name })),
        }),
    ...(options.schema && latest !== undefined ? { schema: latest.schema } : {}),
    bulkRequestLimit: 1,
    createdAt: item.createdAt,
    createdBy: item.createdBy,
    lastUpdatedAt: item.lastUpdatedAt,
    lastUpdatedBy: item.lastUpdatedBy,
  };
}

export function sourceBody(source: CatalogSourceState): Record<string, unknown> {
  return {
    id: source.id,
    name: source.name,
    ...(source.description === undefined ? {} : { description: source.description }),
    typeId: source.typeId,
    config: source.config,
    projectId: source.projectId,
    global: source.global,
    createdAt: source.createdAt,
    createdBy: source.createdBy,
    lastUpdatedAt: source.lastUpdatedAt,
    lastUpdatedBy: source.lastUpdatedBy,
    lastImportStartedAt: source.lastImportStartedAt,
    lastImportCompletedAt: source.lastImportCompletedAt,
    lastImportErrors: [],
    itemsFound: source.itemsFound,
    itemsImported: source.itemsImported,
  };
}

export function entitlementBody(
  catalog: Catalog,
  entitlement: EntitlementState,
): Record<string, unknown> {
  const source =
    entitlement.type === 'CatalogSourceIdentifier'
      ? catalog.sources.find((known) => known.id === entitlement.contentId)
      : undefined;
  const item =
    entitlement.type === 'CatalogItemIdentifier'
      ? catalog.items.find((known) => known.id === entitlement.contentId)
      : undefined;
  return {
    id: entitlement.id,
    projectId: entitlement.projectId,
    definition: {
      id: entitlement.contentId,
      type: entitlement.type,
      ...(source === undefined
        ? {}
        : {
            name: source.name,
            sourceType: source.typeId,
            numItems: catalog.items.filter((known) => known.sourceId === source.id).length,
          }),
      ...(item === undefined
        ? {}
        : { name: item.name, sourceName: item.sourceName, sourceType: blueprintType.id }),
    },
  };
}

export function requestBody(
  deployments: Deployments,
  request: RequestState,
): Record<string, unknown> {
  const status = deployments.status(request);
  const createdAt = new Date(request.createdAt).toISOString();
  const completed = status === 'SUCCESSFUL' ? request.totalTasks : status === 'INPROGRESS' ? 1 : 0;
  const ended = status === 'SUCCESSFUL' || status === 'FAILED';
  return {
    id: request.id,
    name: request.name,
    requestedBy: request.requestedBy,
    actionId: request.actionId,
    deploymentId: request.deploymentId,
    resourceIds: request.resourceIds,
    ...(request.catalogItemId === undefined ? {} : { catalogItemId: request.catalogItemId }),
    ...(request.blueprintId === undefined ? {} : { blueprintId: request.blueprintId }),
    inputs: request.inputs,
    outputs: {},
    status,
    ...(status === 'FAILED'
      ? { details: 'Simulated failure: no placement satisfies the constraints of the request.' }
      : {}),
    createdAt,
    updatedAt: new Date(
      ended ? request.createdAt + 2 * deployments.stepMs : request.createdAt,
    ).toISOString(),
    ...(status === 'CREATED' ? {} : { initializedAt: createdAt }),
    ...(ended
      ? { completedAt: new Date(request.createdAt + 2 * deployments.stepMs).toISOString() }
      : {}),
    totalTasks: request.totalTasks,
    completedTasks: completed,
    cancelable: !ended,
    dismissed: false,
  };
}

export function deploymentStatus(deployments: Deployments, deployment: DeploymentState): string {
  const last = deployment.requests.at(-1);
  if (last === undefined) return 'CREATE_SUCCESSFUL';
  const phase = last.actionId === 'Create' ? 'CREATE' : 'UPDATE';
  const status = deployments.status(last);
  if (status === 'SUCCESSFUL') return `${phase}_SUCCESSFUL`;
  if (status === 'FAILED') return `${phase}_FAILED`;
  return `${phase}_INPROGRESS`;
}

/** A resource as definitions.Resource has it (`GET /deployment/api/resources/{id}`). */
export function resourceFields(resource: ResourceState): Record<string, unknown> {
  return {
    id: resource.id,
    name: resource.name,
    type: resource.type,
    createdAt: resource.createdAt,
    properties: resource.properties,
    syncStatus: 'SUCCESS',
  };
}

/** A resource in its deployment's list, which also says its state and what it depends on. */
export function resourceBody(resource: ResourceState): Record<string, unknown> {
  return { ...resourceFields(resource), state: 'OK', dependsOn: [] };
}

export type DeploymentExpansion =
  'blueprint' | 'catalog' | 'lastRequest' | 'project' | 'resources' | 'inprogressRequests';

export function deploymentBody(
  deployments: Deployments,
  deployment: DeploymentState,
  expand: ReadonlySet<string>,
  projectName: (id: string) => string,
  itemName: (id: string) => string | undefined,
): Record<string, unknown> {
  const last = deployment.requests.at(-1);
  const catalogName =
    deployment.catalogItemId === undefined ? undefined : itemName(deployment.catalogItemId);
  return {
    id: deployment.id,
    name: deployment.name,
    ...(deployment.description === undefined ? {} : { description: deployment.description }),
    orgId,
    projectId: deployment.projectId,
    ...(deployment.catalogItemId === undefined
      ? {}
      : {
          catalogItemId: deployment.catalogItemId,
          catalogItemVersion: deployment.catalogItemVersion,
        }),
    ...(deployment.blueprintId === undefined
      ? {}
      : { blueprintId: deployment.blueprintId, blueprintVersion: deployment.blueprintVersion }),
    inputs: deployment.inputs,
    ownedBy: deployment.ownedBy,
    createdBy: deployment.createdBy,
    createdAt: deployment.createdAt,
    lastUpdatedAt: deployment.lastUpdatedAt,
    lastUpdatedBy: deployment.lastUpdatedBy,
    status: deploymentStatus(deployments, deployment),
    deleted: false,
    ...(expand.has('project')
      ? { project: { id: deployment.projectId, name: projectName(deployment.projectId) } }
      : {}),
    ...(expand.has('catalog') && deployment.catalogItemId !== undefined
      ? {
          catalog: {
            id: deployment.catalogItemId,
            name: catalogName ?? '',
            version: deployment.catalogItemVersion ?? '',
          },
        }
      : {}),
    ...(expand.has('blueprint') && deployment.blueprintId !== undefined
      ? {
          blueprint: {
            id: deployment.blueprintId,
            name: catalogName ?? '',
            version: deployment.blueprintVersion ?? '',
          },
        }
      : {}),
    ...(expand.has('resources') ? { resources: deployment.resources.map(resourceBody) } : {}),
    ...(expand.has('lastRequest') && last !== undefined
      ? { lastRequest: requestBody(deployments, last) }
      : {}),
    ...(expand.has('inprogressRequests')
      ? {
          inprogressRequests: Object.fromEntries(
            deployments.inProgress(deployment).map((request) => [request.id, request.name]),
          ),
        }
      : {}),
  };
}

export function actionBody(action: SimAction, projectId: string): Record<string, unknown> {
  return {
    id: action.id,
    name: action.name,
    displayName: action.displayName,
    description: action.description,
    actionType: 'RESOURCE_ACTION',
    orgId,
    projectId,
    schema: action.schema,
    valid: action.valid,
    dependents: [],
  };
}

export function blueprintBody(
  blueprints: Blueprints,
  blueprint: BlueprintState,
  projectName: string,
): Record<string, unknown> {
  return {
    id: blueprint.id,
    name: blueprint.name,
    ...(blueprint.description === undefined ? {} : { description: blueprint.description }),
    content: blueprint.content,
    orgId,
    projectId: blueprint.projectId,
    projectName,
    requestScopeOrg: blueprint.requestScopeOrg,
    status: blueprints.status(blueprint),
    totalVersions: blueprint.versions.length,
    totalReleasedVersions: blueprints.released(blueprint).length,
    valid: true,
    validationMessages: [],
    selfLink: `/blueprint/api/blueprints/${blueprint.id}`,
    createdAt: blueprint.createdAt,
    createdBy: blueprint.createdBy,
    updatedAt: blueprint.updatedAt,
    updatedBy: blueprint.updatedBy,
  };
}

export function blueprintVersionBody(
  blueprint: BlueprintState,
  version: BlueprintVersionState,
  projectName: string,
): Record<string, unknown> {
  return {
    id: `${blueprint.id}:${version.version}`,
    blueprintId: blueprint.id,
    name: blueprint.name,
    ...(blueprint.description === undefined ? {} : { description: blueprint.description }),
    version: version.version,
    ...(version.description === undefined ? {} : { versionDescription: version.description }),
    ...(version.changeLog === undefined ? {} : { versionChangeLog: version.changeLog }),
    content: version.content,
    orgId,
    projectId: blueprint.projectId,
    projectName,
    status: version.released ? 'RELEASED' : 'VERSIONED',
    valid: true,
    selfLink: `/blueprint/api/blueprints/${blueprint.id}/versions/${version.version}`,
    createdAt: version.createdAt,
    createdBy: version.createdBy,
    updatedAt: version.createdAt,
    updatedBy: version.createdBy,
  };
}
