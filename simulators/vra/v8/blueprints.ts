import { randomUUID } from 'node:crypto';
import {
  templateInputs,
  templateResources,
  type InputSchema,
  type TemplateResource,
} from './blueprint-yaml.ts';
import { badRequest, notFound } from './errors.ts';

export type BlueprintStatus = 'DRAFT' | 'VERSIONED' | 'RELEASED';

export interface BlueprintVersionState {
  version: string;
  description?: string | undefined;
  changeLog?: string | undefined;
  released: boolean;
  content: string;
  createdAt: string;
  createdBy: string;
}

export interface BlueprintState {
  id: string;
  name: string;
  description?: string | undefined;
  projectId: string;
  content: string;
  requestScopeOrg: boolean;
  createdAt: string;
  createdBy: string;
  updatedAt: string;
  updatedBy: string;
  versions: BlueprintVersionState[];
}

/** Cloud templates (blueprints) and their versions. */
export class Blueprints {
  readonly all: BlueprintState[] = [];
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  #stamp(): string {
    return new Date(this.#now()).toISOString();
  }

  create(
    fields: {
      name: string;
      description?: string | undefined;
      projectId: string;
      content: string;
      requestScopeOrg?: boolean | undefined;
    },
    user: string,
    id: string = randomUUID(),
  ): BlueprintState {
    if (
      this.all.some((known) => known.projectId === fields.projectId && known.name === fields.name)
    )
      throw badRequest(`Blueprint with name '${fields.name}' already exists in the project`);
    const at = this.#stamp();
    const blueprint: BlueprintState = {
      id,
      name: fields.name,
      description: fields.description,
      projectId: fields.projectId,
      content: fields.content,
      requestScopeOrg: fields.requestScopeOrg ?? false,
      createdAt: at,
      createdBy: user,
      updatedAt: at,
      updatedBy: user,
      versions: [],
    };
    this.all.push(blueprint);
    return blueprint;
  }

  get(id: string): BlueprintState {
    const blueprint = this.all.find((known) => known.id === id);
    if (blueprint === undefined) throw notFound('Blueprint', id);
    return blueprint;
  }

  version(blueprint: BlueprintState, version: string): BlueprintVersionState {
    const found = blueprint.versions.find((known) => known.version === version);
    if (found === undefined) throw notFound('Blueprint version', `${blueprint.id}:${version}`);
    return found;
  }

  addVersion(
    blueprint: BlueprintState,
    request: {
      version: string;
      description?: string | undefined;
      changeLog?: string | undefined;
      release?: boolean | undefined;
    },
    user: string,
  ): BlueprintVersionState {
    if (request.version.trim() === '') throw badRequest('Version must not be blank');
    if (blueprint.versions.some((known) => known.version === request.version))
      throw badRequest(`Version ${request.version} already exists for blueprint ${blueprint.id}`);
    const version: BlueprintVersionState = {
      version: request.version,
      description: request.description,
      changeLog: request.changeLog,
      released: request.release === true,
      content: blueprint.content,
      createdAt: this.#stamp(),
      createdBy: user,
    };
    blueprint.versions.push(version);
    return version;
  }

  status(blueprint: BlueprintState): BlueprintStatus {
    if (blueprint.versions.some((version) => version.released)) return 'RELEASED';
    return blueprint.versions.length > 0 ? 'VERSIONED' : 'DRAFT';
  }

  /** Released versions, oldest first. */
  released(blueprint: BlueprintState): BlueprintVersionState[] {
    return blueprint.versions.filter((version) => version.released);
  }

  static inputsOf(content: string): InputSchema {
    return templateInputs(content);
  }

  static resourcesOf(content: string): TemplateResource[] {
    const resources = templateResources(content);
    return resources.length > 0 ? resources : [{ name: 'Cloud_Machine_1', type: 'Cloud.Machine' }];
  }
}
