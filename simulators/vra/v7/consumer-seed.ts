/**
 * Seed of the vRA simulator's consumer API: entitled catalog items with their
 * request templates, and resource actions with theirs. Invented, shaped like
 * the captured vRA 7 bodies (ConsumerEntitledCatalogItemView, the
 * CatalogItemProvisioningRequest template, CatalogResource operations).
 */

export interface SimBusinessGroup {
  id: string;
  name: string;
}

export const developmentGroup: SimBusinessGroup = {
  id: '11ebafdb-bc9f-4b39-9a16-e2015b412627',
  name: 'Development',
};
export const qualityGroup: SimBusinessGroup = {
  id: '7276e9b5-883c-42f3-bdf7-62e7f0605cd6',
  name: 'Quality Engineering',
};
export const databaseAdministratorsGroup: SimBusinessGroup = {
  id: 'e3b5c1a4-2f6d-4a8e-b9c7-5d1f0a2e8b43',
  name: 'Database Administrators',
};

export interface SimMachineComponent {
  /** Component name: the key of the template's `data`, e.g. `vSphere_Machine_1`. */
  name: string;
  cpu: number;
  memory: number;
  storage: number;
  osType: 'Linux' | 'Windows';
}

export interface SimEntitledItem {
  id: string;
  name: string;
  description: string | null;
  /** Blueprint name (the provider binding's), used in typeFilter. */
  blueprint: string;
  components: SimMachineComponent[];
  groups: SimBusinessGroup[];
  /** Users entitled to request it (if also in one of its groups); undefined: no such restriction. */
  entitledUsers?: string[] | undefined;
  dateCreated: string;
}

export const machineTypeId = 'Infrastructure.Virtual';
export const deploymentTypeId = 'composition.resource.type.deployment';
const blueprintServiceId = '8ef633cf-9421-4e51-93d2-01389646d107';

/** An action of the seeded resources: the same id on every resource of a type, as on vRA. */
export interface SimActionSpec {
  id: string;
  name: string;
  description: string;
  /** `ACTION` can be requested; `EXTENSION` (console links) cannot. */
  type: 'ACTION' | 'EXTENSION';
  bindingId: string;
  /** `data` of the action's request template. */
  data: Record<string, unknown>;
}

export const machineActions = {
  powerOff: {
    id: '8f664760-5d2d-4e97-8ae3-7fa515144f72',
    name: 'Power Off',
    description: 'Power off a machine.',
    type: 'ACTION',
    bindingId: 'Infrastructure.Machine.Action.PowerOff',
    data: {},
  },
  powerOn: {
    id: '3c0a1d3e-7b59-4a53-9d7e-0a4f2e6b9c11',
    name: 'Power On',
    description: 'Power on a machine.',
    type: 'ACTION',
    bindingId: 'Infrastructure.Machine.Action.PowerOn',
    data: {},
  },
  reboot: {
    id: 'a66d10d0-52af-4799-a953-5c17bca5438a',
    name: 'Reboot',
    description: 'Reboot the guest operating system of a machine.',
    type: 'ACTION',
    bindingId: 'Infrastructure.Machine.Action.Reboot',
    data: {},
  },
  shutdown: {
    id: 'd38400bb-926f-4d85-bea0-6fb828b42e47',
    name: 'Shutdown',
    description: 'Shut down the guest operating system of a machine.',
    type: 'ACTION',
    bindingId: 'Infrastructure.Machine.Action.Shutdown',
    data: {},
  },
  destroy: {
    id: '95e60c87-e4d6-4458-9bfe-af7955cadc06',
    name: 'Destroy',
    description: 'Destroy a machine.',
    type: 'ACTION',
    bindingId: 'Infrastructure.Virtual.Action.Destroy',
    data: { ForceDestroy: false },
  },
  console: {
    id: '613b34f4-f7c9-4171-87a3-79b6e6f7b82c',
    name: 'Connect to Remote Console',
    description: 'Connect to the machine using the remote console.',
    type: 'EXTENSION',
    bindingId: 'Infrastructure.Machine.Action.ConnectViaVmrc',
    data: {},
  },
} as const satisfies Record<string, SimActionSpec>;

export const deploymentActions = {
  destroy: {
    id: '356d45a1-d30e-4def-86c9-10cb9aa2b0de',
    name: 'Destroy',
    description: 'Destroy a deployment and all its machines.',
    type: 'ACTION',
    bindingId: 'composition.resource.action.deployment.destroy',
    data: {},
  },
} as const satisfies Record<string, SimActionSpec>;

/** The actions a machine offers in a power state. */
export function machineOperations(poweredOn: boolean): SimActionSpec[] {
  const a = machineActions;
  return poweredOn
    ? [a.console, a.destroy, a.powerOff, a.reboot, a.shutdown]
    : [a.destroy, a.powerOn];
}

/** The entitled catalog items; the last one is entitled only to the users `restrictedTo`. */
export function seedEntitledItems(restrictedTo: readonly string[]): SimEntitledItem[] {
  return [
    {
      id: 'c7a0e3d2-5b1f-4c8e-9a6d-3f2b1e0d9c01',
      name: 'CentOS 7 Machine',
      description: 'A CentOS 7 virtual machine on vSphere',
      blueprint: 'CentOS7',
      components: [
        { name: 'vSphere_Machine_1', cpu: 1, memory: 2048, storage: 16, osType: 'Linux' },
      ],
      groups: [developmentGroup],
      dateCreated: '2023-03-01T09:30:00.000Z',
    },
    {
      id: 'c7a0e3d2-5b1f-4c8e-9a6d-3f2b1e0d9c02',
      name: 'Three-tier Web Application',
      description: 'Web and database servers on Linux',
      blueprint: 'WebApp3Tier',
      components: [
        { name: 'web', cpu: 2, memory: 4096, storage: 20, osType: 'Linux' },
        { name: 'db', cpu: 4, memory: 8192, storage: 100, osType: 'Linux' },
      ],
      groups: [developmentGroup, qualityGroup],
      dateCreated: '2023-03-02T09:30:00.000Z',
    },
    {
      id: 'c7a0e3d2-5b1f-4c8e-9a6d-3f2b1e0d9c03',
      name: 'Windows Server 2019',
      description: '',
      blueprint: 'Win2019',
      components: [{ name: 'win', cpu: 2, memory: 8192, storage: 60, osType: 'Windows' }],
      groups: [qualityGroup],
      dateCreated: '2023-03-03T09:30:00.000Z',
    },
    {
      id: 'c7a0e3d2-5b1f-4c8e-9a6d-3f2b1e0d9c04',
      name: 'Oracle Database (restricted)',
      description: 'Production database servers; entitled to the DBA team only',
      blueprint: 'Oracle19c',
      components: [{ name: 'oracle', cpu: 8, memory: 32768, storage: 500, osType: 'Linux' }],
      groups: [databaseAdministratorsGroup],
      entitledUsers: [...restrictedTo],
      dateCreated: '2023-03-04T09:30:00.000Z',
    },
  ];
}

/** `GET .../entitledCatalogItemViews` item, shaped like the captured view, naming the caller's `groups`. */
export function entitledView(
  item: SimEntitledItem,
  origin: string,
  tenant: string,
  groups: readonly SimBusinessGroup[] = item.groups,
) {
  const base = `${origin}/catalog-service/api/consumer/entitledCatalogItems/${item.id}/requests`;
  return {
    '@type': 'ConsumerEntitledCatalogItemView',
    entitledOrganizations: groups.map((group) => ({
      tenantRef: tenant,
      tenantLabel: tenant,
      subtenantRef: group.id,
      subtenantLabel: group.name,
    })),
    catalogItemId: item.id,
    name: item.name,
    description: item.description,
    isNoteworthy: false,
    dateCreated: item.dateCreated,
    lastUpdatedDate: item.dateCreated,
    links: [
      { '@type': 'link', rel: 'GET: Request Template', href: `${base}/template` },
      { '@type': 'link', rel: 'POST: Submit Request', href: base },
    ],
    iconId: 'composition.blueprint.png',
    catalogItemTypeRef: {
      id: 'com.vmware.csp.component.cafe.composition.blueprint',
      label: 'Composite Blueprint',
    },
    serviceRef: { id: '6a424930-126b-4beb-ac27-045054a0c8cf', label: 'Infrastructure' },
    outputResourceTypeRef: { id: deploymentTypeId, label: 'Deployment' },
  };
}

export const provisioningRequestType =
  'com.vmware.vcac.catalog.domain.request.CatalogItemProvisioningRequest';
export const resourceRequestType = 'com.vmware.vcac.catalog.domain.request.CatalogResourceRequest';

function componentTemplate(item: SimEntitledItem, component: SimMachineComponent) {
  return {
    componentTypeId: 'com.vmware.csp.component.cafe.composition',
    componentId: null,
    classId: 'Blueprint.Component.Declaration',
    typeFilter: `${item.blueprint}*${component.name}`,
    data: {
      _cluster: 1,
      _hasChildren: false,
      cpu: component.cpu,
      description: null,
      disks: [
        {
          componentTypeId: 'com.vmware.csp.iaas.blueprint.service',
          componentId: null,
          classId: 'Infrastructure.Compute.Machine.MachineDisk',
          typeFilter: null,
          data: {
            capacity: component.storage,
            custom_properties: null,
            id: 1537301083687,
            initial_location: '',
            is_clone: true,
            label: 'Hard disk 1',
            storage_reservation_policy: '',
            userCreated: false,
            volumeId: 0,
          },
        },
      ],
      display_location: false,
      machine_prefix: null,
      max_network_adapters: -1,
      max_per_user: 0,
      memory: component.memory,
      os_arch: 'x86_64',
      os_type: component.osType,
      reservation_policy: null,
      security_groups: [],
      security_tags: [],
      storage: component.storage,
    },
  };
}

/** `GET .../entitledCatalogItems/{id}/requests/template`, shaped like the captured template. */
export function requestTemplate(
  item: SimEntitledItem,
  username: string,
  groups: readonly SimBusinessGroup[] = item.groups,
): Record<string, unknown> {
  const data: Record<string, unknown> = { _leaseDays: null, _number_of_instances: 1 };
  for (const component of item.components) {
    data[component.name] = componentTemplate(item, component);
  }
  return {
    type: provisioningRequestType,
    catalogItemId: item.id,
    requestedFor: username,
    businessGroupId: groups[0]?.id ?? null,
    description: null,
    reasons: null,
    data,
  };
}

export { blueprintServiceId };
