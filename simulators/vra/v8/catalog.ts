import { randomUUID } from 'node:crypto';
import type { InputSchema } from './blueprint-yaml.ts';
import { Blueprints, type BlueprintState } from './blueprints.ts';
import { badRequest, notFound } from './errors.ts';

/** `typeId` of the content source that imports released cloud templates. */
export const blueprintSourceType = 'com.vmw.blueprint';

export interface CatalogSourceState {
  id: string;
  name: string;
  description?: string | undefined;
  typeId: string;
  /** `com.vmw.blueprint`: `{ sourceProjectId }`, the project whose templates it imports. */
  config: Record<string, unknown>;
  projectId: string;
  global: boolean;
  createdAt: string;
  createdBy: string;
  lastUpdatedAt: string;
  lastUpdatedBy: string;
  lastImportStartedAt: string;
  lastImportCompletedAt: string;
  itemsFound: number;
  itemsImported: number;
}

export interface CatalogItemVersion {
  id: string;
  content: string;
  schema: InputSchema;
}

/** An imported item: a cloud template's released versions, as of the last import. */
export interface CatalogItemState {
  /** The cloud template's id: a template's catalog item has the template's id. */
  id: string;
  name: string;
  description?: string | undefined;
  sourceId: string;
  sourceName: string;
  /** Released versions at the last import, latest last. */
  versions: CatalogItemVersion[];
  createdAt: string;
  createdBy: string;
  lastUpdatedAt: string;
  lastUpdatedBy: string;
}

export type EntitlementType = 'CatalogSourceIdentifier' | 'CatalogItemIdentifier';

export interface EntitlementState {
  id: string;
  projectId: string;
  type: EntitlementType;
  /** The source's or the item's id. */
  contentId: string;
}

/** Service Broker's content: sources, their imported items, and sharing with projects. */
export class Catalog {
  readonly sources: CatalogSourceState[] = [];
  readonly items: CatalogItemState[] = [];
  readonly entitlements: EntitlementState[] = [];
  readonly #blueprints: Blueprints;
  readonly #now: () => number;

  constructor(blueprints: Blueprints, now: () => number) {
    this.#blueprints = blueprints;
    this.#now = now;
  }

  /** Creates a source (or, given a known id, updates it) and imports its content now. */
  saveSource(
    fields: {
      id?: string | undefined;
      name: string;
      description?: string | undefined;
      typeId: string;
      config: Record<string, unknown>;
    },
    user: string,
    projectExists: (id: string) => boolean,
  ): { source: CatalogSourceState; created: boolean } {
    if (fields.typeId !== blueprintSourceType)
      throw badRequest(`Unsupported content source type: ${fields.typeId}`);
    const projectId = fields.config['sourceProjectId'];
    if (typeof projectId !== 'string' || !projectExists(projectId))
      throw badRequest('config.sourceProjectId must name an existing project');
    const at = new Date(this.#now()).toISOString();
    let source =
      fields.id === undefined ? undefined : this.sources.find((known) => known.id === fields.id);
    if (fields.id !== undefined && source === undefined)
      throw notFound('Catalog source', fields.id);
    const created = source === undefined;
    if (source === undefined) {
      source = {
        id: randomUUID(),
        name: fields.name,
        typeId: fields.typeId,
        config: fields.config,
        projectId,
        global: false,
        createdAt: at,
        createdBy: user,
        lastUpdatedAt: at,
        lastUpdatedBy: user,
        lastImportStartedAt: at,
        lastImportCompletedAt: at,
        itemsFound: 0,
        itemsImported: 0,
      };
      this.sources.push(source);
    }
    Object.assign(source, {
      name: fields.name,
      description: fields.description,
      config: fields.config,
      projectId,
      lastUpdatedAt: at,
      lastUpdatedBy: user,
    });
    this.#import(source, user, at);
    return { source, created };
  }

  #import(source: CatalogSourceState, user: string, at: string): void {
    source.lastImportStartedAt = at;
    const templates = this.#blueprints.all.filter(
      (blueprint) =>
        blueprint.projectId === source.projectId && this.#blueprints.released(blueprint).length > 0,
    );
    for (const blueprint of templates) this.#importTemplate(source, blueprint, user, at);
    // Items whose template has no released version left leave the catalog.
    for (let index = this.items.length - 1; index >= 0; index--) {
      const item = this.items[index];
      if (item?.sourceId === source.id && !templates.some((blueprint) => blueprint.id === item.id))
        this.items.splice(index, 1);
    }
    source.itemsFound = templates.length;
    source.itemsImported = templates.length;
    source.lastImportCompletedAt = at;
  }

  #importTemplate(
    source: CatalogSourceState,
    blueprint: BlueprintState,
    user: string,
    at: string,
  ): void {
    const versions = this.#blueprints.released(blueprint).map((version) => ({
      id: version.version,
      content: version.content,
      schema: Blueprints.inputsOf(version.content),
    }));
    const known = this.items.find((item) => item.id === blueprint.id);
    if (known !== undefined) {
      Object.assign(known, {
        name: blueprint.name,
        description: blueprint.description,
        versions,
        lastUpdatedAt: at,
        lastUpdatedBy: user,
      });
      return;
    }
    this.items.push({
      id: blueprint.id,
      name: blueprint.name,
      description: blueprint.description,
      sourceId: source.id,
      sourceName: source.name,
      versions,
      createdAt: at,
      createdBy: user,
      lastUpdatedAt: at,
      lastUpdatedBy: user,
    });
  }

  source(id: string): CatalogSourceState {
    const source = this.sources.find((known) => known.id === id);
    if (source === undefined) throw notFound('Catalog source', id);
    return source;
  }

  item(id: string): CatalogItemState {
    const item = this.items.find((known) => known.id === id);
    if (item === undefined) throw notFound('Catalog item', id);
    return item;
  }

  share(projectId: string, type: EntitlementType, contentId: string): EntitlementState {
    if (type === 'CatalogSourceIdentifier') this.source(contentId);
    else this.item(contentId);
    const known = this.entitlements.find(
      (entitlement) => entitlement.projectId === projectId && entitlement.contentId === contentId,
    );
    if (known !== undefined) return known;
    const entitlement: EntitlementState = { id: randomUUID(), projectId, type, contentId };
    this.entitlements.push(entitlement);
    return entitlement;
  }

  /** The projects an item is shared with: by its own entitlement or its source's. */
  projectsOf(item: CatalogItemState): string[] {
    const projects = new Set<string>();
    for (const entitlement of this.entitlements)
      if (entitlement.contentId === item.id || entitlement.contentId === item.sourceId)
        projects.add(entitlement.projectId);
    return [...projects];
  }
}
