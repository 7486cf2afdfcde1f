import { BadUserInputError } from '../../errors.ts';
import type {
  OrganizationInput,
  PublishBlueprintInput,
  RegisterCatalogItemInput,
} from '../../generated/graphql.ts';
import type { WireProviderCatalogItem } from '../../upstreams/vra/wire.ts';

/** vRA provider ids are UUIDs (interfaces.md section 2). */
export const providerIdPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Binding ids: a UUID (interfaces.md) or a composite such as
 * `vsphere.local!::!CentOS63`, which real catalog items carry (reference
 * entitled-catalog-item.json). Letters, digits and `. _ : ! @ -`, up to 255,
 * starting with a letter or digit: nothing that could bend a URL.
 */
export const bindingIdPattern = /^[A-Za-z0-9][A-Za-z0-9._:!@-]{0,254}$/;

type Problems = Array<{ argument: string; problem: string }>;

function nonEmpty(problems: Problems, argument: string, value: string): void {
  if (value.trim() === '') problems.push({ argument, problem: 'must not be empty' });
}

function optionalNonEmpty(problems: Problems, argument: string, value: string | null | undefined) {
  if (value !== null && value !== undefined) nonEmpty(problems, argument, value);
}

function fail(problems: Problems): never {
  const [first] = problems;
  throw new BadUserInputError(
    `Invalid input: ${problems.map((p) => `${p.argument} ${p.problem}`).join('; ')}.`,
    first?.argument,
  );
}

type ItemFields = Omit<RegisterCatalogItemInput, 'providerId' | 'bindingId'>;

function checkItem(problems: Problems, input: ItemFields): void {
  nonEmpty(problems, 'input.name', input.name);
  nonEmpty(problems, 'input.iconId', input.iconId);
  nonEmpty(problems, 'input.catalogItemTypeId', input.catalogItemTypeId);
  nonEmpty(problems, 'input.outputResourceTypeId', input.outputResourceTypeId);
  checkOrganization(problems, input.organization);
  const forms = input.forms;
  if (
    forms !== null &&
    forms !== undefined &&
    (typeof forms !== 'object' || Array.isArray(forms))
  ) {
    problems.push({ argument: 'input.forms', problem: 'must be a JSON object or null' });
  }
}

function checkOrganization(problems: Problems, organization: OrganizationInput): void {
  nonEmpty(problems, 'input.organization.tenantRef', organization.tenantRef);
  nonEmpty(problems, 'input.organization.tenantLabel', organization.tenantLabel);
  optionalNonEmpty(problems, 'input.organization.subtenantRef', organization.subtenantRef);
  optionalNonEmpty(problems, 'input.organization.subtenantLabel', organization.subtenantLabel);
}

function checkBindingId(problems: Problems, argument: string, value: string): void {
  if (!bindingIdPattern.test(value)) {
    problems.push({
      argument,
      problem: 'must be a UUID or a binding id of letters, digits and . _ : ! @ - (up to 255)',
    });
  }
}

/** The register body of interfaces.md: id = bindingId, absent subtenant fields and forms sent as null. */
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

/** Checks a registerCatalogItem input (every problem at once) and builds its body. */
export function registration(input: RegisterCatalogItemInput): {
  providerId: string;
  item: WireProviderCatalogItem;
} {
  const problems: Problems = [];
  if (!providerIdPattern.test(input.providerId)) {
    problems.push({ argument: 'input.providerId', problem: 'must be a UUID' });
  }
  checkBindingId(problems, 'input.bindingId', input.bindingId);
  checkItem(problems, input);
  if (problems.length > 0) fail(problems);
  return { providerId: input.providerId, item: body(input.bindingId, input) };
}

/** Checks a publishBlueprint input and builds its body (id = virtualMachineTemplateId). */
export function blueprintRegistration(input: PublishBlueprintInput): WireProviderCatalogItem {
  const problems: Problems = [];
  checkBindingId(problems, 'input.virtualMachineTemplateId', input.virtualMachineTemplateId);
  checkItem(problems, input);
  optionalNonEmpty(problems, 'input.providerName', input.providerName);
  if (problems.length > 0) fail(problems);
  return body(input.virtualMachineTemplateId, input);
}
