import type { RecordedRequest, SimHandler } from '../../sim-server.ts';
import { sendJson } from '../../sim-server.ts';
import { SpecViolation } from '../../spec-validator.ts';
import { Blueprints } from './blueprints.ts';
import {
  actionBody,
  blueprintBody,
  blueprintVersionBody,
  catalogItemBody,
  deploymentBody,
  entitlementBody,
  projectBody,
  requestBody,
  resourceBody,
  resourceFields,
  sourceBody,
} from './bodies.ts';
import type { Catalog, EntitlementType } from './catalog.ts';
import type { Deployments } from './deployments.ts';
import { badRequest, forbidden, notFound, unauthorized, Vra8Error } from './errors.ts';
import type { Vra8Identity } from './identity.ts';
import { checkInputs } from './item-inputs.ts';
import { iaasPage, listParameter, orderedBy, pagingOf, springPage } from './paging.ts';
import type { Vra8Project, Vra8User } from './seed.ts';
import type { Vra8Specs } from './specs.ts';

export interface Vra8World {
  specs: Vra8Specs;
  identity: Vra8Identity;
  /** Every account that may log in, the service account (every project) included. */
  users: readonly Vra8User[];
  projects: readonly Vra8Project[];
  catalog: Catalog;
  blueprints: Blueprints;
  deployments: Deployments;
  /** The service account: the only catalog administrator. */
  admin: string;
  /** Where each 400 answer is written down (a body the spec refuses, a bad input). */
  refusals?: Vra8Refusal[];
}

/** A request the simulator answered 400. */
export interface Vra8Refusal {
  method: string;
  path: string;
  message: string;
}

export const latestApiVersion = '2021-07-15';
const supportedApiVersions = [latestApiVersion, '2019-01-15'];

interface Context {
  request: RecordedRequest;
  params: Record<string, string>;
  body: Record<string, unknown>;
  user: string;
  /** The project ids the caller is a member of. */
  memberOf: string[];
}

interface Answer {
  status: number;
  body: unknown;
}

type Route = (context: Context) => Answer;

const ok = (body: unknown): Answer => ({ status: 200, body });
const created = (body: unknown): Answer => ({ status: 201, body });

function paramsOf(template: string, path: string): Record<string, string> {
  const params: Record<string, string> = {};
  const values = path.split('/');
  template.split('/').forEach((part, index) => {
    const match = /^\{(.+)\}$/.exec(part);
    if (match?.[1] !== undefined) params[match[1]] = values[index] ?? '';
  });
  return params;
}

function jsonBody(request: RecordedRequest): unknown {
  if (request.body.length === 0) return undefined;
  const type = request.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(type))
    throw new Vra8Error(415, `Content type '${type}' not supported`);
  try {
    return JSON.parse(request.body.toString('utf8')) as unknown;
  } catch {
    throw badRequest('Malformed JSON request body');
  }
}

function bearerOf(request: RecordedRequest): string | undefined {
  const match = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '');
  return match?.[1];
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export function createVra8Routes(world: Vra8World): SimHandler {
  const { specs, identity, catalog, blueprints, deployments } = world;
  const userNamed = (name: string): Vra8User | undefined =>
    world.users.find((user) => user.username.toLowerCase() === name.toLowerCase());
  const memberships = (username: string): string[] =>
    userNamed(username)?.projects?.slice() ?? world.projects.map((project) => project.id);
  const membersOf = (projectId: string): string[] =>
    world.users
      .filter((user) => user.projects === undefined || user.projects.includes(projectId))
      .map((user) => user.username);
  const project = (id: string): Vra8Project => {
    const found = world.projects.find((known) => known.id === id);
    if (found === undefined) throw notFound('Project', id);
    return found;
  };
  const projectName = (id: string): string => project(id).name;
  const visibleItem = (context: Context, id: string) => {
    const item = catalog.item(id);
    if (!catalog.projectsOf(item).some((projectId) => context.memberOf.includes(projectId)))
      throw forbidden(`Catalog item ${id} is not shared with any project of the caller`);
    return item;
  };
  const visibleDeployment = (context: Context, id: string) => {
    const deployment = deployments.get(id);
    if (!context.memberOf.includes(deployment.projectId)) throw notFound('Deployment', id);
    return deployment;
  };
  const visibleBlueprint = (context: Context, id: string) => {
    const blueprint = blueprints.get(id);
    if (!context.memberOf.includes(blueprint.projectId)) throw notFound('Blueprint', id);
    return blueprint;
  };
  const requireAdmin = (context: Context): void => {
    if (context.user !== world.admin)
      throw forbidden('Catalog administration needs the catalog administrator role');
  };
  const expandOf = (request: RecordedRequest): Set<string> =>
    new Set(listParameter(request, 'expand'));
  const itemName = (id: string): string | undefined =>
    catalog.items.find((item) => item.id === id)?.name;

  const routes: Record<string, Route> = {
    'GET /iaas/api/about': () =>
      ok({
        supportedApis: supportedApiVersions.map((apiVersion) => ({
          apiVersion,
          documentationLink: `/iaas/api/swagger/ui/?urls.primaryName=${apiVersion}`,
          ...(apiVersion === latestApiVersion
            ? {}
            : { deprecationPolicy: { deprecatedAt: '2021-07-15', expiresAt: '2022-07-15' } }),
        })),
        latestApiVersion,
      }),
    'POST /iaas/api/login': ({ body }) => {
      const username = identity.userOf(str(body['refreshToken']) ?? '', 'refresh');
      if (username === undefined) throw new Vra8Error(400, 'Invalid refresh token', 40001);
      return ok({ tokenType: 'Bearer', token: identity.issue('access', username).token });
    },
    'GET /iaas/api/projects': ({ request, memberOf }) =>
      ok(
        iaasPage(
          world.projects
            .filter((known) => memberOf.includes(known.id))
            .map((known) => projectBody(known, membersOf(known.id))),
          pagingOf(request),
        ),
      ),
    'GET /iaas/api/projects/{id}': ({ params, memberOf }) => {
      const found = project(params['id'] ?? '');
      if (!memberOf.includes(found.id)) throw notFound('Project', found.id);
      return ok(projectBody(found, membersOf(found.id)));
    },

    'GET /catalog/api/items': (context) => {
      const { request } = context;
      const wanted = listParameter(request, 'projects');
      const search = request.query.get('search')?.toLowerCase();
      const expand = request.query.get('expandProjects') === 'true';
      const items = catalog.items.filter((item) => {
        const shared = catalog.projectsOf(item).filter((id) => context.memberOf.includes(id));
        if (shared.length === 0) return false;
        if (wanted.length > 0 && !shared.some((id) => wanted.includes(id))) return false;
        return (
          search === undefined ||
          item.name.toLowerCase().includes(search) ||
          (item.description ?? '').toLowerCase().includes(search)
        );
      });
      return ok(
        springPage(
          items.map((item) =>
            catalogItemBody(catalog, item, {
              schema: false,
              projects: expand ? world.projects : undefined,
            }),
          ),
          pagingOf(request),
        ),
      );
    },
    'GET /catalog/api/items/{id}': (context) =>
      ok(
        catalogItemBody(catalog, visibleItem(context, context.params['id'] ?? ''), {
          schema: true,
          projects:
            context.request.query.get('expandProjects') === 'true' ? world.projects : undefined,
        }),
      ),
    'POST /catalog/api/items/{id}/request': (context) => {
      const { body } = context;
      const item = visibleItem(context, context.params['id'] ?? '');
      const deploymentName = str(body['deploymentName']);
      const projectId = str(body['projectId']);
      if (deploymentName === undefined || deploymentName.trim() === '')
        throw badRequest('deploymentName is required');
      if (projectId === undefined) throw badRequest('projectId is required');
      if (!context.memberOf.includes(projectId) || !catalog.projectsOf(item).includes(projectId))
        throw forbidden(`Catalog item ${item.id} is not shared with project ${projectId}`);
      const count = typeof body['bulkRequestCount'] === 'number' ? body['bulkRequestCount'] : 1;
      if (count !== 1) throw badRequest('bulkRequestCount exceeds the bulk request limit of 1');
      const versionId = str(body['version']) ?? item.versions.at(-1)?.id;
      const version = item.versions.find((known) => known.id === versionId);
      if (version === undefined)
        throw notFound('Catalog item version', `${item.id}:${String(versionId)}`);
      const inputs = checkInputs(
        version.schema as unknown as Record<string, unknown>,
        body['inputs'],
      );
      const deployment = deployments.order({
        name: deploymentName,
        description: str(body['reason']),
        projectId,
        catalogItemId: item.id,
        version: version.id,
        inputs,
        resources: Blueprints.resourcesOf(version.content),
        user: context.user,
      });
      return ok([{ deploymentId: deployment.id, deploymentName: deployment.name }]);
    },
    'GET /catalog/api/admin/sources': (context) => {
      requireAdmin(context);
      return ok(springPage(catalog.sources.map(sourceBody), pagingOf(context.request)));
    },
    'POST /catalog/api/admin/sources': (context) => {
      requireAdmin(context);
      const { body } = context;
      const config = body['config'];
      const { source, created: isNew } = catalog.saveSource(
        {
          id: str(body['id']),
          name: str(body['name']) ?? '',
          description: str(body['description']),
          typeId: str(body['typeId']) ?? '',
          config:
            typeof config === 'object' && config !== null
              ? (config as Record<string, unknown>)
              : {},
        },
        context.user,
        (id) => world.projects.some((known) => known.id === id),
      );
      return isNew ? created(sourceBody(source)) : ok(sourceBody(source));
    },
    'GET /catalog/api/admin/sources/{sourceId}': (context) => {
      requireAdmin(context);
      return ok(sourceBody(catalog.source(context.params['sourceId'] ?? '')));
    },
    'GET /catalog/api/admin/entitlements': (context) => {
      requireAdmin(context);
      const projectId = context.request.query.get('projectId');
      return ok(
        catalog.entitlements
          .filter((entitlement) => projectId === null || entitlement.projectId === projectId)
          .map((entitlement) => entitlementBody(catalog, entitlement)),
      );
    },
    'POST /catalog/api/admin/entitlements': (context) => {
      requireAdmin(context);
      const projectId = str(context.body['projectId']) ?? '';
      project(projectId);
      const definition = context.body['definition'] as Record<string, unknown>;
      const type = str(definition['type']);
      if (type !== 'CatalogSourceIdentifier' && type !== 'CatalogItemIdentifier')
        throw badRequest(`Unsupported entitlement type: ${String(type)}`);
      const entitlement = catalog.share(
        projectId,
        type satisfies EntitlementType,
        str(definition['id']) ?? '',
      );
      return created(entitlementBody(catalog, entitlement));
    },

    'GET /deployment/api/deployments': (context) => {
      const { request } = context;
      const wanted = listParameter(request, 'projects');
      const search = (request.query.get('search') ?? request.query.get('name'))?.toLowerCase();
      const expand = expandOf(request);
      const found = orderedBy(
        request,
        deployments.all.filter(
          (deployment) =>
            context.memberOf.includes(deployment.projectId) &&
            (wanted.length === 0 || wanted.includes(deployment.projectId)) &&
            (search === undefined || deployment.name.toLowerCase().includes(search)),
        ),
        {
          createdAt: (deployment) => deployment.createdAt,
          lastUpdatedAt: (deployment) => deployment.lastUpdatedAt,
          name: (deployment) => deployment.name,
        },
      );
      return ok(
        springPage(
          found.map((deployment) =>
            deploymentBody(deployments, deployment, expand, projectName, itemName),
          ),
          pagingOf(request),
        ),
      );
    },
    'GET /deployment/api/deployments/{deploymentId}': (context) =>
      ok(
        deploymentBody(
          deployments,
          visibleDeployment(context, context.params['deploymentId'] ?? ''),
          expandOf(context.request),
          projectName,
          itemName,
        ),
      ),
    'GET /deployment/api/deployments/{deploymentId}/resources': (context) => {
      const deployment = visibleDeployment(context, context.params['deploymentId'] ?? '');
      return ok(springPage(deployment.resources.map(resourceBody), pagingOf(context.request)));
    },
    'GET /deployment/api/deployments/{deploymentId}/requests': (context) => {
      const deployment = visibleDeployment(context, context.params['deploymentId'] ?? '');
      return ok(
        springPage(
          [...deployment.requests].reverse().map((request) => requestBody(deployments, request)),
          pagingOf(context.request),
        ),
      );
    },
    'GET /deployment/api/deployments/{deploymentId}/resources/{resourceId}/actions': (context) => {
      const deployment = visibleDeployment(context, context.params['deploymentId'] ?? '');
      const resource = deployments.resource(deployment, context.params['resourceId'] ?? '');
      return ok(
        deployments.actionsOf(resource).map((action) => actionBody(action, deployment.projectId)),
      );
    },
    'POST /deployment/api/deployments/{deploymentId}/resources/{resourceId}/requests': (
      context,
    ) => {
      const deployment = visibleDeployment(context, context.params['deploymentId'] ?? '');
      const resource = deployments.resource(deployment, context.params['resourceId'] ?? '');
      const actionId = str(context.body['actionId']);
      if (actionId === undefined) throw badRequest('actionId is required');
      const request = deployments.runAction(
        deployment,
        resource,
        { actionId, inputs: context.body['inputs'], reason: str(context.body['reason']) },
        context.user,
      );
      return ok(requestBody(deployments, request));
    },
    'GET /deployment/api/resources/{resourceId}': (context) => {
      const id = context.params['resourceId'] ?? '';
      const { deployment, resource } = deployments.resourceById(id);
      if (!context.memberOf.includes(deployment.projectId)) throw notFound('Resource', id);
      return ok({
        ...resourceFields(resource),
        deploymentId: deployment.id,
        projectId: deployment.projectId,
      });
    },
    'GET /deployment/api/requests/{requestId}': (context) => {
      const request = deployments.request(context.params['requestId'] ?? '');
      visibleDeployment(context, request.deploymentId);
      return ok(requestBody(deployments, request));
    },

    'GET /blueprint/api/blueprints': (context) => {
      const { request } = context;
      const wanted = listParameter(request, 'projects');
      const name = request.query.get('name');
      const search = request.query.get('search')?.toLowerCase();
      const released = request.query.get('released');
      const found = blueprints.all.filter(
        (blueprint) =>
          context.memberOf.includes(blueprint.projectId) &&
          (wanted.length === 0 || wanted.includes(blueprint.projectId)) &&
          (name === null || blueprint.name === name) &&
          (search === undefined || blueprint.name.toLowerCase().includes(search)) &&
          (released === null ||
            blueprints.released(blueprint).length > 0 === (released === 'true')),
      );
      return ok(
        springPage(
          found.map((blueprint) =>
            blueprintBody(blueprints, blueprint, projectName(blueprint.projectId)),
          ),
          pagingOf(request),
        ),
      );
    },
    'POST /blueprint/api/blueprints': (context) => {
      const { body } = context;
      const name = str(body['name']);
      const projectId = str(body['projectId']);
      if (name === undefined || name.trim() === '') throw badRequest('Blueprint name is required');
      if (projectId === undefined) throw badRequest('Blueprint projectId is required');
      project(projectId);
      if (!context.memberOf.includes(projectId))
        throw forbidden(`Not a member of project ${projectId}`);
      const blueprint = blueprints.create(
        {
          name,
          description: str(body['description']),
          projectId,
          content: str(body['content']) ?? '',
          requestScopeOrg:
            typeof body['requestScopeOrg'] === 'boolean' ? body['requestScopeOrg'] : undefined,
        },
        context.user,
      );
      return created(blueprintBody(blueprints, blueprint, projectName(projectId)));
    },
    'GET /blueprint/api/blueprints/{blueprintId}': (context) => {
      const blueprint = visibleBlueprint(context, context.params['blueprintId'] ?? '');
      return ok(blueprintBody(blueprints, blueprint, projectName(blueprint.projectId)));
    },
    'GET /blueprint/api/blueprints/{blueprintId}/versions': (context) => {
      const blueprint = visibleBlueprint(context, context.params['blueprintId'] ?? '');
      return ok(
        springPage(
          [...blueprint.versions]
            .reverse()
            .map((version) =>
              blueprintVersionBody(blueprint, version, projectName(blueprint.projectId)),
            ),
          pagingOf(context.request),
        ),
      );
    },
    'POST /blueprint/api/blueprints/{blueprintId}/versions': (context) => {
      const blueprint = visibleBlueprint(context, context.params['blueprintId'] ?? '');
      const version = blueprints.addVersion(
        blueprint,
        {
          version: str(context.body['version']) ?? '',
          description: str(context.body['description']),
          changeLog: str(context.body['changeLog']),
          release: context.body['release'] === true,
        },
        context.user,
      );
      return created(blueprintVersionBody(blueprint, version, projectName(blueprint.projectId)));
    },
    'GET /blueprint/api/blueprints/{blueprintId}/versions/{version}': (context) => {
      const blueprint = visibleBlueprint(context, context.params['blueprintId'] ?? '');
      const version = blueprints.version(blueprint, context.params['version'] ?? '');
      return ok(blueprintVersionBody(blueprint, version, projectName(blueprint.projectId)));
    },
    'POST /blueprint/api/blueprints/{blueprintId}/versions/{version}/actions/release': (
      context,
    ) => {
      const blueprint = visibleBlueprint(context, context.params['blueprintId'] ?? '');
      const version = blueprints.version(blueprint, context.params['version'] ?? '');
      version.released = true;
      return ok(blueprintVersionBody(blueprint, version, projectName(blueprint.projectId)));
    },
    'POST /blueprint/api/blueprints/{blueprintId}/versions/{version}/actions/unrelease': (
      context,
    ) => {
      const blueprint = visibleBlueprint(context, context.params['blueprintId'] ?? '');
      const version = blueprints.version(blueprint, context.params['version'] ?? '');
      version.released = false;
      return ok(blueprintVersionBody(blueprint, version, projectName(blueprint.projectId)));
    },
  };

  /** CSP identity: not in the specification files (docs/upstreams.md, vRA 8). */
  const cspLogin = (request: RecordedRequest): Answer => {
    if (!request.query.has('access_token')) throw notFound('Route', request.path);
    const body = jsonBody(request);
    const fields =
      typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    const username = str(fields['username']);
    const password = str(fields['password']);
    const domain = str(fields['domain']);
    if (username === undefined || password === undefined)
      throw badRequest('username and password are required');
    const name =
      domain === undefined || username.includes('@') ? username : `${username}@${domain}`;
    const user = userNamed(name);
    if (user?.password !== password) throw new Vra8Error(401, 'Invalid username or password', 401);
    const access = identity.issue('access', user.username);
    return ok({
      refresh_token: identity.issue('refresh', user.username).token,
      access_token: access.token,
      id_token: identity.issue('access', user.username).token,
      token_type: 'bearer',
      expires_in: access.expiresInS,
      scope: 'openid profile email',
    });
  };
  const cspLogout = (request: RecordedRequest): Answer => {
    const token = bearerOf(request) ?? str(request.headers['csp-auth-token']);
    if (token === undefined || identity.userOf(token, 'access') === undefined) throw unauthorized();
    identity.revoke(token);
    return ok({ url: '/csp/gateway/discovery?logout' });
  };

  const answer = (request: RecordedRequest): Answer & { template?: string } => {
    const path = request.path.replace(/(.)\/$/, '$1');
    if (request.method === 'POST' && path === '/csp/gateway/am/api/login') return cspLogin(request);
    if (request.method === 'POST' && path === '/csp/gateway/am/api/auth/logout')
      return cspLogout(request);
    const operation = specs.find(path);
    if (operation === undefined) throw notFound('Route', path);
    if (!operation.methods.includes(request.method))
      throw new Vra8Error(405, `Request method '${request.method}' not supported`);
    const apiVersion = request.query.get('apiVersion');
    if (
      path.startsWith('/iaas/') &&
      apiVersion !== null &&
      !supportedApiVersions.includes(apiVersion)
    )
      throw badRequest(`Unsupported apiVersion: ${apiVersion}`);
    const open =
      operation.template === '/iaas/api/about' || operation.template === '/iaas/api/login';
    const token = bearerOf(request);
    const user = token === undefined ? undefined : identity.userOf(token, 'access');
    if (!open && user === undefined) throw unauthorized();
    const body = jsonBody(request);
    const checked = operation.validator.validateRequestBody(
      request.method,
      operation.template,
      body,
    );
    if (!checked.ok) throw badRequest(`Invalid request body: ${checked.errors.join('; ')}`);
    const route = routes[`${request.method} ${operation.template}`];
    if (route === undefined)
      throw new Vra8Error(405, `Request method '${request.method}' not supported`);
    deployments.settle();
    const result = route({
      request,
      params: paramsOf(operation.template, path),
      body: (body ?? {}) as Record<string, unknown>,
      user: user ?? '',
      memberOf: user === undefined ? [] : memberships(user),
    });
    operation.validator.assertResponse(
      request.method,
      operation.template,
      result.status,
      result.body,
    );
    return result;
  };

  return (request, response) => {
    let result: Answer;
    try {
      result = answer(request);
    } catch (error) {
      // An answer that fails the specification is the simulator's bug: the
      // server answers 500 with the violation, and tests fail.
      if (error instanceof SpecViolation || !(error instanceof Vra8Error)) throw error;
      const body = error.body();
      const checked = specs.validateError(body);
      if (!checked.ok) throw new SpecViolation('An error body', checked.errors);
      result = { status: error.status, body };
      if (error.status === 400)
        world.refusals?.push({
          method: request.method,
          path: request.path,
          message: error.message,
        });
    }
    sendJson(response, result.status, result.body);
  };
}
