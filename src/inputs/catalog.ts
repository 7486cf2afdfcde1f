/**
 * The catalog operations' arguments (vRA), checked before any call to the
 * catalog service: each check answers the value or body the client sends, or
 * throws BAD_USER_INPUT naming the argument.
 */
import type {
  FormValueInput,
  OrganizationInput,
  PublishBlueprintInput,
  RegisterCatalogItemInput,
  RequestCatalogItemInput,
  RequestResourceActionInput,
} from '../generated/graphql.ts';
import { isObject } from '../upstreams/vra/decode.ts';
import type { RequestEdits } from '../upstreams/vra/request-body.ts';
import type { WireProviderCatalogItem } from '../upstreams/vra/wire.ts';
import { checkAll, checkLength, checkNotBlank, checkPattern, optional, refuse } from './check.ts';
import { checkValuesShape } from './request-values.ts';

/** vRA provider ids are UUIDs (docs/upstreams.md, vRA). */
const providerIdPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Binding ids and the ids of the consumer API (catalog item, request,
 * resource, action: UUIDs on real vRA), or a composite such as
 * `vsphere.local!::!CentOS63`, which real catalog items carry (fixture
 * entitled-catalog-item.json, docs/upstreams.md). Letters, digits and `. _ : ! @ -`, up to 255,
 * starting with a letter or digit: nothing that could bend a URL.
 */
const vraIdPattern = /^[A-Za-z0-9][A-Za-z0-9._:!@-]{0,254}$/;

/** A provider id: a UUID. */
export function checkProviderId(value: string, argument: string): string {
  return checkPattern(value, providerIdPattern, argument, 'must be a provider id (a UUID)');
}

/** An id of a catalog item, request, resource, action, business group or binding. */
export function checkVraId(value: string, argument: string): string {
  return checkPattern(
    value,
    vraIdPattern,
    argument,
    'must be a vRA id (a UUID, or letters, digits and . _ : ! @ -, up to 255)',
  );
}

/** A provider's name, as `providerByName` takes it. */
export function checkProviderName(value: string, argument: string): string {
  return checkNotBlank(value, argument);
}

/** `data` of a request input: absent, null or a JSON object of changes to the template's data. */
export function checkRequestData(data: unknown): Record<string, unknown> | undefined {
  if (data === undefined || data === null) return undefined;
  if (!isObject(data)) {
    refuse(
      'input.data',
      'input.data must be a JSON object of changes to the template\'s data, e.g. { "machine.vsphere": { "data": { "cpu": 2 } } }.',
    );
  }
  return data;
}

/** A requestCatalogItem input: the item to request and the edits of its template. */
export function checkItemRequest(input: RequestCatalogItemInput): {
  catalogItemId: string;
  edits: RequestEdits;
  values: readonly FormValueInput[] | undefined;
} {
  const catalogItemId = checkVraId(input.catalogItemId, 'input.catalogItemId');
  const businessGroupId = optional(input.businessGroupId, (id) =>
    checkVraId(id, 'input.businessGroupId'),
  );
  const data = checkRequestData(input.data);
  const deploymentName = optional(input.deploymentName, (name) =>
    checkLength(checkNotBlank(name, 'input.deploymentName'), 255, 'input.deploymentName'),
  );
  return {
    catalogItemId,
    edits: {
      data,
      description: input.description,
      reasons: input.reasons,
      businessGroupId,
      deploymentName,
    },
    values: checkValuesShape(input.values),
  };
}

/** A requestResourceAction input: the resource, the action and the edits of its template. */
export function checkActionRequest(input: RequestResourceActionInput): {
  resourceId: string;
  actionId: string;
  edits: RequestEdits;
} {
  const resourceId = checkVraId(input.resourceId, 'input.resourceId');
  const actionId = checkVraId(input.actionId, 'input.actionId');
  const data = checkRequestData(input.data);
  return {
    resourceId,
    actionId,
    edits: { data, description: input.description, reasons: input.reasons },
  };
}

type ItemFields = Omit<RegisterCatalogItemInput, 'providerId' | 'bindingId'>;

function itemChecks(input: ItemFields): Array<() => unknown> {
  return [
    () => checkNotBlank(input.name, 'input.name'),
    () => checkNotBlank(input.iconId, 'input.iconId'),
    () => checkNotBlank(input.catalogItemTypeId, 'input.catalogItemTypeId'),
    () => checkNotBlank(input.outputResourceTypeId, 'input.outputResourceTypeId'),
    ...organizationChecks(input.organization),
    () => checkForms(input.forms),
  ];
}

function organizationChecks(organization: OrganizationInput): Array<() => unknown> {
  const at = (field: keyof OrganizationInput) => `input.organization.${field}`;
  return [
    () => checkNotBlank(organization.tenantRef, at('tenantRef')),
    () => checkNotBlank(organization.tenantLabel, at('tenantLabel')),
    () => optional(organization.subtenantRef, (value) => checkNotBlank(value, at('subtenantRef'))),
    () =>
      optional(organization.subtenantLabel, (value) => checkNotBlank(value, at('subtenantLabel'))),
  ];
}

function checkForms(forms: unknown): void {
  if (forms === null || forms === undefined) return;
  if (typeof forms !== 'object' || Array.isArray(forms)) {
    refuse('input.forms', 'input.forms must be a JSON object or null.');
  }
}

/** The register body (docs/upstreams.md, vRA): id = bindingId, absent subtenant fields and forms sent as null. */
function body(id: string, input: ItemFields): WireProviderCatalogItem {
  return {
    id,
    name: input.name,
    description: input.description,
    iconId: input.iconId,
    catalogItemTypeId: input.catalogItemTypeId,
    organization: {
      tenantRef: input.organization.tenantRef,
      tenantLabel: input.organization.tenantLabel,
      subtenantRef: input.organization.subtenantRef ?? null,
      subtenantLabel: input.organization.subtenantLabel ?? null,
    },
    outputResourceTypeId: input.outputResourceTypeId,
    forms: (input.forms ?? null) as Record<string, unknown> | null,
  };
}

/** A registerCatalogItem input, every problem at once, as the provider id and the body to send. */
export function checkRegistration(input: RegisterCatalogItemInput): {
  providerId: string;
  item: WireProviderCatalogItem;
} {
  checkAll([
    () => checkProviderId(input.providerId, 'input.providerId'),
    () => checkVraId(input.bindingId, 'input.bindingId'),
    ...itemChecks(input),
  ]);
  return { providerId: input.providerId, item: body(input.bindingId, input) };
}

/** A publishBlueprint input, every problem at once, as the body to send (id = virtualMachineTemplateId). */
export function checkBlueprintRegistration(input: PublishBlueprintInput): WireProviderCatalogItem {
  checkAll([
    () => checkVraId(input.virtualMachineTemplateId, 'input.virtualMachineTemplateId'),
    ...itemChecks(input),
    () => optional(input.providerName, (name) => checkProviderName(name, 'input.providerName')),
  ]);
  return body(input.virtualMachineTemplateId, input);
}
