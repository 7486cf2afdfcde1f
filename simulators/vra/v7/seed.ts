/**
 * Seed data of the vRA simulator: invented, shaped like the vRA 7 bodies in
 * the project's reference (providers, catalog items with providerBinding,
 * catalogItemTypeRef, outputResourceTypeRef, organization, status, ...).
 */

export interface SimProvider {
  '@type': 'Provider';
  id: string;
  name: string;
  providerTypeId: string;
}

export interface SimRef {
  id: string;
  label: string | null;
}

export interface SimOrganization {
  tenantRef: string;
  tenantLabel: string;
  subtenantRef: string | null;
  subtenantLabel: string | null;
}

export interface SimCatalogItem {
  '@type': 'CatalogItem';
  callbacks: null;
  catalogItemTypeRef: SimRef;
  dateCreated: string;
  description: string | null;
  forms: Record<string, unknown> | null;
  iconId: string;
  id: string;
  isNoteworthy: boolean;
  lastUpdatedDate: string;
  name: string;
  organization: SimOrganization;
  outputResourceTypeRef: SimRef;
  providerBinding: { bindingId: string; providerRef: SimRef };
  serviceRef: SimRef | null;
  status: 'PUBLISHED' | 'RETIRED' | 'STAGING';
  statusName: string;
  quota: number;
  version: number;
  requestable: boolean;
}

export const iaasProviderId = '6c1f4cc9-4806-4337-899e-50da870b3ed9';

export const seedProviders: readonly SimProvider[] = [
  {
    '@type': 'Provider',
    id: iaasProviderId,
    name: 'iaas-service',
    providerTypeId: 'com.vmware.csp.iaas.blueprint.service',
  },
  {
    '@type': 'Provider',
    id: '8ef633cf-9421-4e51-93d2-01389646d107',
    name: 'Blueprint Service',
    providerTypeId: 'com.vmware.csp.component.cafe.composition',
  },
  {
    '@type': 'Provider',
    id: 'a24bcde1-00a3-4c70-b638-9255aeab0d58',
    name: 'Advanced Designer Service',
    providerTypeId: 'com.vmware.csp.core.designer.service',
  },
  {
    '@type': 'Provider',
    id: '78bab96d-5ba0-4fed-80ef-9d9ce77d1277',
    name: 'Software Service',
    providerTypeId: 'com.vmware.csp.component.software.service',
  },
  {
    '@type': 'Provider',
    id: 'beecf67b-e6c2-43da-98ae-6a578abe75d7',
    name: 'Container Service',
    providerTypeId: 'com.vmware.csp.component.container.service',
  },
  {
    '@type': 'Provider',
    id: 'aaaf29db-1aa0-4272-a2d5-dacf12b4e14c',
    name: "Ops Team's XaaS",
    providerTypeId: 'com.vmware.csp.core.designer.service',
  },
];

const typeLabels: Record<string, string> = {
  'com.vmware.csp.component.cafe.composition.blueprint': 'Composite Blueprint',
  'com.vmware.csp.iaas.blueprint.service.machine': 'Machine Blueprint',
  'com.vmware.csp.core.designer.service.serviceblueprint': 'XaaS Blueprint',
  'com.vmware.csp.component.software.type': 'Software Component',
  'composition.resource.type.deployment': 'Deployment',
  'Infrastructure.Virtual': 'Virtual Machine',
  'com.vmware.csp.core.designer.resource': 'XaaS Resource',
};

/** `{id, label}` with vRA's label for known type ids. */
export function typeRef(id: string): SimRef {
  return { id, label: Object.hasOwn(typeLabels, id) ? (typeLabels[id] ?? id) : id };
}

const businessGroups = [
  { id: '11ebafdb-bc9f-4b39-9a16-e2015b412627', name: 'Development' },
  { id: '7276e9b5-883c-42f3-bdf7-62e7f0605cd6', name: 'Quality Engineering' },
];

interface ItemSpec {
  name: string;
  description: string | null;
  provider: number;
  type: string;
  output: string;
  status?: SimCatalogItem['status'];
  group?: number;
}

const machine = 'com.vmware.csp.iaas.blueprint.service.machine';
const composite = 'com.vmware.csp.component.cafe.composition.blueprint';
const xaas = 'com.vmware.csp.core.designer.service.serviceblueprint';
const software = 'com.vmware.csp.component.software.type';
const deployment = 'composition.resource.type.deployment';

const specs: readonly ItemSpec[] = [
  {
    name: 'CentOS 7 Base',
    description: 'CentOS 7.9 minimal, 2 vCPU, 4 GB',
    provider: 0,
    type: machine,
    output: 'Infrastructure.Virtual',
  },
  {
    name: 'CentOS 8 Base',
    description: 'CentOS 8 minimal',
    provider: 0,
    type: machine,
    output: 'Infrastructure.Virtual',
    status: 'RETIRED',
  },
  {
    name: 'RHEL 8 Hardened',
    description: 'CIS level 1 image',
    provider: 0,
    type: machine,
    output: 'Infrastructure.Virtual',
    group: 0,
  },
  {
    name: 'Ubuntu 20.04 LTS',
    description: null,
    provider: 0,
    type: machine,
    output: 'Infrastructure.Virtual',
  },
  {
    name: 'Ubuntu 22.04 LTS',
    description: 'Ubuntu server with cloud-init',
    provider: 0,
    type: machine,
    output: 'Infrastructure.Virtual',
  },
  {
    name: 'Windows Server 2016',
    description: 'Standard edition',
    provider: 0,
    type: machine,
    output: 'Infrastructure.Virtual',
  },
  {
    name: 'Windows Server 2019',
    description: 'Datacenter edition',
    provider: 0,
    type: machine,
    output: 'Infrastructure.Virtual',
    group: 1,
  },
  {
    name: 'Windows Server 2022',
    description: 'Datacenter edition, core',
    provider: 0,
    type: machine,
    output: 'Infrastructure.Virtual',
    status: 'STAGING',
  },
  {
    name: 'Debian 11',
    description: 'Debian bullseye',
    provider: 0,
    type: machine,
    output: 'Infrastructure.Virtual',
  },
  {
    name: 'Photon OS 4',
    description: 'Container host',
    provider: 0,
    type: machine,
    output: 'Infrastructure.Virtual',
  },
  {
    name: 'Three-tier Web App',
    description: 'Load balancer, two web servers and a database',
    provider: 1,
    type: composite,
    output: deployment,
  },
  {
    name: 'LAMP Stack',
    description: 'Linux, Apache, MySQL, PHP',
    provider: 1,
    type: composite,
    output: deployment,
    group: 0,
  },
  {
    name: 'Kubernetes Dev Cluster',
    description: 'Three nodes, kubeadm',
    provider: 1,
    type: composite,
    output: deployment,
  },
  {
    name: 'SQL Server Always On',
    description: 'Two-node availability group',
    provider: 1,
    type: composite,
    output: deployment,
    group: 1,
  },
  {
    name: 'Jenkins Controller',
    description: null,
    provider: 1,
    type: composite,
    output: deployment,
  },
  {
    name: 'ELK Logging',
    description: 'Elasticsearch, Logstash, Kibana',
    provider: 1,
    type: composite,
    output: deployment,
  },
  {
    name: 'Dukes Bank Demo',
    description: 'Demo application on Linux',
    provider: 1,
    type: composite,
    output: deployment,
    status: 'RETIRED',
  },
  {
    name: 'GitLab Runner Pool',
    description: 'Autoscaling runners',
    provider: 1,
    type: composite,
    output: deployment,
  },
  {
    name: 'Redis Cluster',
    description: 'Six nodes',
    provider: 1,
    type: composite,
    output: deployment,
  },
  {
    name: 'Create AD User',
    description: 'Creates a user in Active Directory',
    provider: 2,
    type: xaas,
    output: 'com.vmware.csp.core.designer.resource',
  },
  {
    name: 'Reset AD Password',
    description: 'Resets the password of a user',
    provider: 2,
    type: xaas,
    output: 'com.vmware.csp.core.designer.resource',
  },
  {
    name: 'Request DNS Record',
    description: 'A and PTR records',
    provider: 2,
    type: xaas,
    output: 'com.vmware.csp.core.designer.resource',
  },
  {
    name: 'Request Firewall Rule',
    description: 'Opens a port between two groups',
    provider: 2,
    type: xaas,
    output: 'com.vmware.csp.core.designer.resource',
    group: 1,
  },
  {
    name: 'Create NFS Share',
    description: null,
    provider: 2,
    type: xaas,
    output: 'com.vmware.csp.core.designer.resource',
  },
  {
    name: 'Snapshot Cleanup',
    description: 'Removes snapshots older than 7 days',
    provider: 2,
    type: xaas,
    output: 'com.vmware.csp.core.designer.resource',
    status: 'STAGING',
  },
  {
    name: 'Onboard Project',
    description: 'Creates a business group and reservations',
    provider: 2,
    type: xaas,
    output: 'com.vmware.csp.core.designer.resource',
  },
  {
    name: 'Apache HTTP Server',
    description: 'Software component',
    provider: 3,
    type: software,
    output: deployment,
  },
  {
    name: 'MySQL Server',
    description: 'Software component',
    provider: 3,
    type: software,
    output: deployment,
  },
  {
    name: 'Tomcat 9',
    description: 'Software component',
    provider: 3,
    type: software,
    output: deployment,
  },
  {
    name: 'Nginx',
    description: 'Software component',
    provider: 3,
    type: software,
    output: deployment,
    group: 0,
  },
  {
    name: 'PostgreSQL 14',
    description: 'Software component',
    provider: 3,
    type: software,
    output: deployment,
  },
  { name: 'Node.js Runtime', description: null, provider: 3, type: software, output: deployment },
  {
    name: 'Java 17 Runtime',
    description: 'Temurin JDK',
    provider: 3,
    type: software,
    output: deployment,
  },
];

const statusNames: Record<SimCatalogItem['status'], string> = {
  PUBLISHED: 'Published',
  RETIRED: 'Retired',
  STAGING: 'Staging',
};

export function statusName(status: SimCatalogItem['status']): string {
  return statusNames[status];
}

/** Deterministic, UUID-shaped ids for seeded catalog items. */
function seedItemId(n: number): string {
  return `5eed0000-0000-4000-8000-${(n + 1).toString(16).padStart(12, '0')}`;
}

/** The seeded catalog items (33 over 4 providers), owned by `tenant`. */
export function seedCatalogItems(tenant: string): SimCatalogItem[] {
  return specs.map((spec, n) => {
    const provider = seedProviders[spec.provider] ?? seedProviders[0];
    const group = spec.group === undefined ? undefined : businessGroups[spec.group];
    const id = seedItemId(n);
    const status = spec.status ?? 'PUBLISHED';
    const date = new Date(Date.UTC(2023, 0, 1 + n, 9, 30)).toISOString();
    return {
      '@type': 'CatalogItem',
      callbacks: null,
      catalogItemTypeRef: typeRef(spec.type),
      dateCreated: date,
      description: spec.description,
      forms: null,
      iconId: spec.type === composite ? 'composition.blueprint.png' : `${spec.type}.png`,
      id,
      isNoteworthy: n % 7 === 0,
      lastUpdatedDate: date,
      name: spec.name,
      organization: {
        tenantRef: tenant,
        tenantLabel: tenant,
        subtenantRef: group?.id ?? null,
        subtenantLabel: group?.name ?? null,
      },
      outputResourceTypeRef: typeRef(spec.output),
      providerBinding: {
        bindingId: spec.provider === 1 ? `${tenant}!::!${spec.name.replace(/\W/g, '')}` : id,
        providerRef: { id: provider?.id ?? iaasProviderId, label: provider?.name ?? null },
      },
      serviceRef: { id: '6a424930-126b-4beb-ac27-045054a0c8cf', label: 'Infrastructure' },
      status,
      statusName: statusNames[status],
      quota: 0,
      version: 1,
      requestable: status === 'PUBLISHED',
    };
  });
}
