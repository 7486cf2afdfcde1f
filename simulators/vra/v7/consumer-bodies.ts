import { isObject } from './catalog.ts';
import {
  blueprintServiceId,
  deploymentTypeId,
  machineTypeId,
  type SimActionSpec,
  type SimBusinessGroup,
  type SimEntitledItem,
} from './consumer-seed.ts';

/* Wire bodies of the simulated vRA consumer API: resources and typed literals. */

type Json = Record<string, unknown>;

export interface SimResource {
  id: string;
  name: string;
  owner: string;
  requestId: string;
  kind: 'deployment' | 'machine';
  description: string | null;
  parent: SimResource | undefined;
  children: SimResource[];
  item: SimEntitledItem | undefined;
  group: SimBusinessGroup | undefined;
  dateCreated: string;
  /** Machines: CPU, memory (MB), storage (GB), component name, OS. */
  machine?: { cpu: number; memory: number; storage: number; component: string; osType: string };
  poweredOn: boolean;
  deleted: boolean;
}

/** Wire body of a resource: `CatalogResource`, shaped like the captured ones. */
export function resourceBody(
  resource: SimResource,
  tenant: string,
  operations: readonly SimActionSpec[],
): Json {
  const machine = resource.machine;
  const lease = { start: resource.dateCreated, end: null };
  return {
    '@type': 'CatalogResource',
    id: resource.id,
    iconId:
      resource.kind === 'machine'
        ? 'Infrastructure.CatalogItem.Machine.Virtual.vSphere'
        : 'composition.blueprint.png',
    resourceTypeRef:
      resource.kind === 'machine'
        ? { id: machineTypeId, label: 'Virtual Machine' }
        : { id: deploymentTypeId, label: 'Deployment' },
    name: resource.name,
    description: resource.description,
    status: 'ACTIVE',
    catalogItem:
      resource.kind === 'deployment' && resource.item !== undefined
        ? { id: resource.item.id, label: resource.item.name }
        : null,
    requestId: resource.requestId,
    requestState: 'SUCCESSFUL',
    providerBinding: {
      bindingId: bindingIdOf(resource.id),
      providerRef: { id: blueprintServiceId, label: 'Blueprint Service' },
    },
    owners: [{ tenantName: tenant, ref: resource.owner, type: 'USER', value: resource.owner }],
    organization: {
      tenantRef: tenant,
      tenantLabel: tenant,
      subtenantRef: resource.group?.id ?? null,
      subtenantLabel: resource.group?.name ?? null,
    },
    dateCreated: resource.dateCreated,
    lastUpdated: resource.dateCreated,
    hasLease: true,
    lease,
    hasCosts: false,
    parentResourceRef:
      resource.parent === undefined
        ? null
        : { id: resource.parent.id, label: resource.parent.name },
    hasChildren: resource.children.length > 0,
    operations: operations.map((spec) => ({
      name: spec.name,
      description: spec.description,
      iconId: null,
      type: spec.type,
      id: spec.id,
      extensionId: null,
      providerTypeId: 'com.vmware.csp.iaas.blueprint.service',
      bindingId: spec.bindingId,
      hasForm: false,
      formScale: null,
    })),
    forms: {
      catalogResourceInfoHidden: resource.kind === 'machine',
      details:
        resource.kind === 'machine'
          ? {
              type: 'extension',
              extensionId: 'csp.places.iaas.item.details',
              extensionPointId: null,
            }
          : { type: 'external', formId: 'composition.deployment.details' },
    },
    resourceData: {
      entries:
        machine === undefined
          ? []
          : typedEntries({
              MachineName: resource.name,
              MachineCPU: machine.cpu,
              MachineMemory: machine.memory,
              MachineStorage: machine.storage,
              MachineStatus: resource.poweredOn ? 'On' : 'Off',
              MachineInterfaceType: 'vSphere',
              MachineGuestOperatingSystem: machine.osType,
              Component: machine.component,
              ip_address: `10.10.0.${(Number.parseInt(resource.id.slice(-2), 16) % 250) + 2}`,
              IS_COMPONENT_MACHINE: false,
              MachineDailyCost: 0.5,
              DISK_VOLUMES: [
                {
                  DISK_INPUT_ID: 'DISK_INPUT_ID1',
                  DISK_CAPACITY: machine.storage,
                  DISK_LABEL: 'Hard disk 1',
                },
              ],
            }),
    },
  };
}

/** A stable UUID-shaped binding id derived from a resource id. */
function bindingIdOf(id: string): string {
  return `b${id.slice(1)}`;
}

/** vRA's typed literals of plain JSON: `{key, value:{type, value}}`, complex and multiple. */
export function typedEntries(data: Json, prefix = ''): Array<{ key: string; value: unknown }> {
  return Object.entries(data).map(([key, value]) => ({
    key: `${prefix}${key}`,
    value: typedLiteral(value),
  }));
}

function typedLiteral(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return { type: 'string', value };
  if (typeof value === 'boolean') return { type: 'boolean', value };
  if (typeof value === 'number') {
    return { type: Number.isInteger(value) ? 'integer' : 'decimal', value };
  }
  if (Array.isArray(value)) {
    return {
      type: 'multiple',
      elementTypeId: value.every(isObject) ? 'COMPLEX' : 'STRING',
      items: value.map(typedLiteral),
    };
  }
  const object = value as Json;
  const inner = isObject(object['data']) ? object['data'] : object;
  return {
    type: 'complex',
    componentTypeId:
      typeof object['componentTypeId'] === 'string' ? object['componentTypeId'] : null,
    componentId: null,
    classId: typeof object['classId'] === 'string' ? object['classId'] : null,
    typeFilter: typeof object['typeFilter'] === 'string' ? object['typeFilter'] : null,
    values: { entries: typedEntries(inner) },
  };
}
