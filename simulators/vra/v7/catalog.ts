import { randomUUID } from 'node:crypto';
import {
  seedCatalogItems,
  seedProviders,
  statusName,
  typeRef,
  type SimCatalogItem,
  type SimProvider,
} from './seed.ts';

/** The body of the register PUT (docs/upstreams.md, vRA), once validated. */
export interface ProviderCatalogItemBody {
  id: string;
  name: string;
  description: string;
  iconId: string;
  catalogItemTypeId: string;
  organization: {
    tenantRef: string;
    tenantLabel: string;
    subtenantRef: string | null;
    subtenantLabel: string | null;
  };
  outputResourceTypeId: string;
  forms: Record<string, unknown> | null;
}

const bodyFields = [
  'id',
  'name',
  'description',
  'iconId',
  'catalogItemTypeId',
  'organization',
  'outputResourceTypeId',
  'forms',
];
const organizationFields = ['tenantRef', 'tenantLabel', 'subtenantRef', 'subtenantLabel'];

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks a register body the strict way: every field of the register body (docs/upstreams.md, vRA) present
 * (forms and the subtenant fields may be null, but not missing), no unknown
 * field, strings non-empty, and `id` equal to the path's bindingId.
 * Answers the problem, or undefined when the body is valid.
 */
export function registerBodyProblem(body: unknown, bindingId: string): string | undefined {
  if (!isObject(body)) return 'The provided resource was null or not an object.';
  for (const field of bodyFields) {
    if (!(field in body)) return `Missing required field: ${field}.`;
  }
  const unknown = Object.keys(body).find((key) => !bodyFields.includes(key));
  if (unknown !== undefined) return `Unrecognized field "${unknown}".`;
  for (const field of ['id', 'name', 'iconId', 'catalogItemTypeId', 'outputResourceTypeId']) {
    const value = body[field];
    if (typeof value !== 'string' || value.trim() === '')
      return `${field} must be a non-empty string.`;
  }
  if (typeof body['description'] !== 'string') return 'description must be a string.';
  if (body['id'] !== bindingId)
    return `id "${String(body['id'])}" differs from the bindingId of the path.`;
  const forms = body['forms'];
  if (forms !== null && !isObject(forms)) return 'forms must be an object or null.';
  const organization = body['organization'];
  if (!isObject(organization)) return 'organization must be an object.';
  for (const field of organizationFields) {
    if (!(field in organization)) return `Missing required field: organization.${field}.`;
  }
  const extra = Object.keys(organization).find((key) => !organizationFields.includes(key));
  if (extra !== undefined) return `Unrecognized field "organization.${extra}".`;
  for (const field of ['tenantRef', 'tenantLabel']) {
    const value = organization[field];
    if (typeof value !== 'string' || value.trim() === '') {
      return `organization.${field} must be a non-empty string.`;
    }
  }
  for (const field of ['subtenantRef', 'subtenantLabel']) {
    const value = organization[field];
    if (value !== null && (typeof value !== 'string' || value.trim() === '')) {
      return `organization.${field} must be a non-empty string or null.`;
    }
  }
  return undefined;
}

/** Providers and catalog items of one simulator. */
export class CatalogState {
  readonly providers: SimProvider[];
  readonly items: SimCatalogItem[];

  constructor(
    tenant: string,
    providers: readonly SimProvider[] | undefined,
    items: readonly SimCatalogItem[] | undefined,
  ) {
    this.providers = structuredClone([...(providers ?? seedProviders)]);
    this.items = structuredClone([...(items ?? seedCatalogItems(tenant))]);
  }

  provider(id: string): SimProvider | undefined {
    return this.providers.find((p) => p.id === id);
  }

  /** Registers the item, or updates the one already registered for this provider and binding. */
  register(
    provider: SimProvider,
    body: ProviderCatalogItemBody,
  ): { item: SimCatalogItem; created: boolean } {
    const now = new Date().toISOString();
    const existing = this.items.find(
      (item) =>
        item.providerBinding.providerRef.id === provider.id &&
        item.providerBinding.bindingId === body.id,
    );
    const fields = {
      catalogItemTypeRef: typeRef(body.catalogItemTypeId),
      description: body.description,
      forms: body.forms,
      iconId: body.iconId,
      name: body.name,
      organization: { ...body.organization },
      outputResourceTypeRef: typeRef(body.outputResourceTypeId),
      lastUpdatedDate: now,
    };
    if (existing !== undefined) {
      Object.assign(existing, fields, { version: existing.version + 1 });
      return { item: existing, created: false };
    }
    const item: SimCatalogItem = {
      '@type': 'CatalogItem',
      callbacks: null,
      dateCreated: now,
      // vRA gives a registered item an id of its own: the captured entitled
      // item's id differs from its bindingId (docs/upstreams.md, vRA).
      id: randomUUID(),
      isNoteworthy: false,
      providerBinding: {
        bindingId: body.id,
        providerRef: { id: provider.id, label: provider.name },
      },
      serviceRef: null,
      status: 'PUBLISHED',
      statusName: statusName('PUBLISHED'),
      quota: 0,
      version: 1,
      requestable: true,
      ...fields,
    };
    this.items.push(item);
    return { item, created: true };
  }
}
