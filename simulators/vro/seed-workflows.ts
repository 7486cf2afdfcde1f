/**
 * Seed data of the vRO simulator: workflows modelled on the vRO 7 library
 * (vCenter VM management, snapshots, networking, Active Directory, vRA
 * helpers) plus custom ones. Library workflows have the long non-UUID ids
 * vRO gives its built-ins; custom ones have UUIDs. "Request Component" is the
 * workflow of the captured bodies (vcoworkflows, Apache-2.0).
 */

export interface SeedParameter {
  name: string;
  type: string;
  description?: string;
}

/** States a run passes through after `initializing`, one simulator step each. */
export type SeedPhase = 'running' | 'waiting' | 'waiting-signal';

export interface SeedWorkflow {
  id: string;
  name: string;
  description?: string;
  version: string;
  /** Name of the folder (vRO category) holding the workflow. */
  category: string;
  inputs: SeedParameter[];
  outputs: SeedParameter[];
  canExecute?: boolean;
  canEdit?: boolean;
  customIcon?: boolean;
  /** Default: running, running. */
  phases?: SeedPhase[];
  /** Every run fails with this `content-exception`. */
  failure?: string;
  /** Output values as plain JSON by name; outputs left out get a value made from their type. */
  results?: (inputs: Readonly<Record<string, unknown>>, run: number) => Record<string, unknown>;
}

/** Category name -> the id in its `categoryHref`. */
export const seedCategories: Readonly<Record<string, string>> = {
  Clone: 'ff80808148eb04940149d404c1506b3b',
  Basic: 'a4c123b1612dd272d1371c17149d4395',
  'Power Management': '36b3216fdaeeb975729fae923d5a4fd1',
  Snapshot: '2aabfe228f219e9cb0eb53f16947ccf2',
  'Standard Virtual Switch': '5ec84d8dbc74254770f58904dba41ecc',
  'Distributed Virtual Port Group': 'cc3fc1626e53a13043b026c48bbf33fe',
  Networking: 'ff9243a8f506b40928b5b7a767c76fb0',
  User: '08f86bebb2737f6a6f0fb23c6f5da2ce',
  'User Group': 'c255404e4fb440034d6608697a8d41be',
  'Organizational Unit': 'd440e50454f31af3176813e02ea68ef7',
  'vRA Helpers': '86e4d3cea27d26934b484e73cf575dca',
  vCAC: 'd6ba2b0aee0ca923732881584d8c4fa2',
  Provisioning: '815d2802827283e0ad84173581569969',
  'Guest Operations': 'e58b081006f7e3dfc967a64cb14028d5',
  Testing: '12c9791e558e08baa7196b50ac2f8670',
  Test: '2824c1c099724caf4941d4072014b3ce',
};

const p = (name: string, type: string, description?: string): SeedParameter =>
  description === undefined ? { name, type } : { name, type, description };

const vm = (name = 'vm', description = 'Virtual machine') =>
  p(name, 'VC:VirtualMachine', description);
const library = (suffix: string) => `BD808080808080808080808080808080${suffix}`;

type LibraryWorkflow = Omit<SeedWorkflow, 'id' | 'version' | 'outputs' | 'canEdit'> &
  Partial<Pick<SeedWorkflow, 'version' | 'outputs'>>;

/** A workflow of the vRO library: its built-in id, not editable; version 1.0.0 and no outputs unless given. */
function builtIn(
  code: string,
  {
    name,
    description,
    version = '1.0.0',
    category,
    inputs,
    outputs = [],
    ...rest
  }: LibraryWorkflow,
): SeedWorkflow {
  return {
    id: library(code),
    name,
    ...(description === undefined ? {} : { description }),
    version,
    category,
    canEdit: false,
    inputs,
    outputs,
    ...rest,
  };
}

/** A virtual machine of the simulated vCenter, as a result. */
const vmRef = (number: number) => ({ type: 'VC:VirtualMachine', id: `vcenter-01/vm-${number}` });

/** The VM and the guest account a guest operation takes. */
const guestLogin = [vm(), p('vmUsername', 'string'), p('vmPassword', 'SecureString')];

/** What "Echo parameters" answers as given: a value of each kind, then VMs (it takes a secret too, which it does not answer). */
const echoedValues = [
  p('text', 'string'),
  p('count', 'number'),
  p('flag', 'boolean'),
  p('when', 'Date'),
  p('names', 'Array/string'),
  p('matrix', 'Array/Array/number'),
  p('props', 'Properties'),
];
const echoedVms = [vm('vm'), p('vms', 'Array/VC:VirtualMachine')];

const text = (value: unknown, fallback: string): string =>
  typeof value === 'string' && value !== '' ? value : fallback;

export const seedWorkflows: readonly SeedWorkflow[] = [
  // ---------------------------------------------------------------- Clone
  builtIn('53C180800122528313869552e41805bb1', {
    name: 'Clone virtual machine, no customization',
    description:
      'Clones a virtual machine without changing anything except the virtual machine UUID.',
    version: '1.0.2',
    category: 'Clone',
    inputs: [
      vm('vm', 'Virtual machine to clone'),
      p('name', 'string', 'Name of the new virtual machine'),
      p('folder', 'VC:VmFolder', 'Virtual machine folder'),
      p('powerOn', 'boolean', 'Power on the virtual machine after creation'),
      p('template', 'boolean', 'Mark the new virtual machine as a template'),
      p('datastore', 'VC:Datastore', 'Datastore in which to store the virtual machine'),
      p('pool', 'VC:ResourcePool', 'Resource pool to which to attach the virtual machine'),
    ],
    outputs: [vm('newVM', 'The new virtual machine')],
    results: (_inputs, run) => ({ newVM: vmRef(2600 + run) }),
  }),
  builtIn('25C280800122528313869552e41805bb1', {
    name: 'Clone virtual machine, Linux',
    description:
      'Clones a Linux virtual machine, performing the guest operating system customization.',
    version: '1.1.0',
    category: 'Clone',
    inputs: [
      vm('vm', 'Virtual machine to clone'),
      p('name', 'string', 'Name of the new virtual machine'),
      p('folder', 'VC:VmFolder'),
      p('powerOn', 'boolean'),
      p('hostName', 'string', 'Host name of the guest'),
      p('domain', 'string', 'Domain of the guest'),
      p('ipAddress', 'string', 'Static IP address; empty for DHCP'),
      p('dnsServers', 'Array/string', 'DNS servers'),
    ],
    outputs: [vm('newVM', 'The new virtual machine')],
    phases: ['running', 'running', 'running'],
    results: (_inputs, run) => ({ newVM: vmRef(3100 + run) }),
  }),
  builtIn('27C280800122528313869552e41805bb1', {
    name: 'Clone virtual machine, Windows Sysprep with single NIC and credential',
    description: 'Clones a Windows virtual machine, customizing it with Sysprep.',
    version: '1.0.4',
    category: 'Clone',
    inputs: [
      vm('vm', 'Virtual machine to clone'),
      p('name', 'string'),
      p('folder', 'VC:VmFolder'),
      p('powerOn', 'boolean'),
      p('adminPassword', 'SecureString', 'Local administrator password'),
      p('workgroup', 'string'),
      p('productId', 'string', 'Windows product key'),
      p('network', 'VC:Network'),
    ],
    outputs: [vm('newVM', 'The new virtual machine')],
    phases: ['running', 'running', 'running', 'running'],
  }),
  {
    id: 'com.vmware.library.vc.vm.cloneVM',
    name: 'Clone virtual machine from properties',
    description: 'Clones a virtual machine; clone settings come from a Properties object.',
    version: '7.0.1',
    category: 'Clone',
    canEdit: false,
    inputs: [vm('vm'), p('name', 'string'), p('spec', 'Properties', 'Clone settings')],
    outputs: [vm('newVM'), p('task', 'VC:Task', 'The vCenter task of the clone')],
  },
  {
    id: 'bdd640fb-0667-4ad1-9c80-317fa3b1799d',
    name: 'Clone VM from golden template',
    description:
      'Clones the golden template of an operating system into the target cluster and tags it.',
    version: '2.3.0',
    category: 'Clone',
    customIcon: true,
    inputs: [
      p('osTemplate', 'string', 'Template name, e.g. centos-7-x86_64'),
      p('vmName', 'string'),
      p('cpuCount', 'number'),
      p('memoryMB', 'number'),
      p('tags', 'Array/string'),
      p('cluster', 'VC:ClusterComputeResource'),
    ],
    outputs: [vm('vm'), p('ipAddress', 'string'), p('durationSeconds', 'number')],
    results: (inputs, run) => ({
      vm: vmRef(4000 + run),
      ipAddress: `10.20.30.${(run % 200) + 10}`,
      durationSeconds: text(inputs['vmName'], '').length + 326,
    }),
  },
  // ---------------------------------------------------------------- Basic
  builtIn('0AC280800122528313869552e41805bb1', {
    name: 'Create simple virtual machine',
    description:
      'Creates a virtual machine with the most common devices and configuration options.',
    version: '1.2.0',
    category: 'Basic',
    inputs: [
      p('vmName', 'string'),
      p('vmFolder', 'VC:VmFolder'),
      p('vmDatastore', 'VC:Datastore'),
      p('vmResourcePool', 'VC:ResourcePool'),
      p('vmGuestOs', 'VC:VirtualMachineGuestOsIdentifier'),
      p('vmCpuCount', 'number'),
      p('vmMemorySize', 'number', 'Memory in MB'),
      p('vmDiskSize', 'number', 'Disk size in GB'),
      p('vmNetwork', 'VC:Network'),
    ],
    outputs: [vm('newVM')],
  }),
  builtIn('0BC280800122528313869552e41805bb1', {
    name: 'Delete virtual machine',
    description: 'Removes a virtual machine from the inventory and datastore.',
    version: '1.0.1',
    category: 'Basic',
    inputs: [vm('vm', 'Virtual machine to delete')],
  }),
  builtIn('0CC280800122528313869552e41805bb1', {
    name: 'Rename virtual machine',
    category: 'Basic',
    inputs: [vm(), p('newName', 'string')],
  }),
  builtIn('0DC280800122528313869552e41805bb1', {
    name: 'Change RAM',
    description: 'Changes the amount of RAM of a virtual machine.',
    category: 'Basic',
    inputs: [vm(), p('memory', 'number', 'Memory in MB')],
  }),
  builtIn('0EC280800122528313869552e41805bb1', {
    name: 'Mark as template',
    category: 'Basic',
    inputs: [vm()],
    outputs: [vm('vmTemplate')],
  }),
  builtIn('0FC280800122528313869552e41805bb1', {
    name: 'Move virtual machines to folder',
    category: 'Basic',
    inputs: [p('vms', 'Array/VC:VirtualMachine'), p('folder', 'VC:VmFolder')],
  }),
  {
    id: 'ab9099a4-35a2-40ae-9af3-05535ec42e08',
    name: 'Reconfigure VM hardware',
    description: 'Sets CPU, memory and hot-add flags in one reconfiguration task.',
    version: '1.4.2',
    category: 'Basic',
    inputs: [
      vm(),
      p('cpuCount', 'number'),
      p('coresPerSocket', 'number'),
      p('memoryMB', 'number'),
      p('cpuHotAdd', 'boolean'),
      p('memoryHotAdd', 'boolean'),
    ],
    outputs: [p('changed', 'boolean'), p('summary', 'Properties')],
    results: (inputs) => ({
      changed: true,
      summary: { cpuCount: inputs['cpuCount'] ?? 2, memoryMB: inputs['memoryMB'] ?? 4096 },
    }),
  },
  // ---------------------------------------------------------------- Power Management
  builtIn('10C280800122528313869552e41805bb1', {
    name: 'Start virtual machine and wait',
    description: 'Starts a virtual machine and waits for VMware Tools to start.',
    category: 'Power Management',
    inputs: [vm(), p('host', 'VC:HostSystem', 'Host; empty for the current one')],
  }),
  builtIn('11C280800122528313869552e41805bb1', {
    name: 'Power off virtual machine and wait',
    category: 'Power Management',
    inputs: [vm()],
  }),
  builtIn('12C280800122528313869552e41805bb1', {
    name: 'Shut down and delete virtual machine',
    category: 'Power Management',
    inputs: [vm()],
  }),
  builtIn('13C280800122528313869552e41805bb1', {
    name: 'Reboot guest OS',
    category: 'Power Management',
    inputs: [vm()],
  }),
  builtIn('14C280800122528313869552e41805bb1', {
    name: 'Suspend virtual machine',
    category: 'Power Management',
    inputs: [vm()],
  }),
  // ---------------------------------------------------------------- Snapshot
  builtIn('20C280800122528313869552e41805bb1', {
    name: 'Create a snapshot',
    description: 'Creates a snapshot of a virtual machine.',
    version: '1.0.3',
    category: 'Snapshot',
    inputs: [
      vm(),
      p('name', 'string', 'Snapshot name'),
      p('description', 'string'),
      p('memory', 'boolean', 'Include the memory of the virtual machine'),
      p('quiesce', 'boolean', 'Quiesce the guest file system'),
    ],
    outputs: [p('snapshot', 'VC:VirtualMachineSnapshot')],
    results: (_inputs, run) => ({
      snapshot: { type: 'VC:VirtualMachineSnapshot', id: `vcenter-01/snapshot-${run}` },
    }),
  }),
  builtIn('21C280800122528313869552e41805bb1', {
    name: 'Revert to current snapshot',
    category: 'Snapshot',
    inputs: [vm(), p('host', 'VC:HostSystem'), p('suppressPowerOn', 'boolean')],
  }),
  builtIn('22C280800122528313869552e41805bb1', {
    name: 'Revert to snapshot',
    category: 'Snapshot',
    inputs: [p('snapshot', 'VC:VirtualMachineSnapshot'), p('suppressPowerOn', 'boolean')],
  }),
  builtIn('23C280800122528313869552e41805bb1', {
    name: 'Remove all snapshots',
    category: 'Snapshot',
    inputs: [vm()],
  }),
  builtIn('24C280800122528313869552e41805bb1', {
    name: 'Remove excess snapshots',
    description: 'Keeps the given number of most recent snapshots of a virtual machine.',
    category: 'Snapshot',
    inputs: [vm(), p('numberOfSnapshotsToKeep', 'number')],
    outputs: [p('removed', 'number')],
    results: () => ({ removed: 2 }),
  }),
  {
    id: 'com.vmware.library.vc.vm.snapshot.removeSnapshotsOlderThan',
    name: 'Remove snapshots older than a date',
    version: '7.0.0',
    category: 'Snapshot',
    canEdit: false,
    inputs: [p('vms', 'Array/VC:VirtualMachine'), p('olderThan', 'Date')],
    outputs: [p('removedSnapshots', 'Array/string'), p('removedCount', 'number')],
    results: () => ({
      removedSnapshots: ['before-patch-2023-11', 'nightly-0412'],
      removedCount: 2,
    }),
  },
  {
    id: 'e27a984d-6548-41d0-bfcd-9eb1a7cad415',
    name: 'Snapshot VMs before patching',
    description: 'Snapshots every VM of a folder, then waits for the patch window to open.',
    version: '0.9.1',
    category: 'Snapshot',
    inputs: [p('folder', 'VC:VmFolder'), p('patchWindow', 'Date'), p('retainDays', 'number')],
    outputs: [p('snapshotIds', 'Array/string'), p('windowOpened', 'Date')],
    phases: ['running', 'waiting-signal', 'running'],
  },
  // ---------------------------------------------------------------- Networking
  builtIn('30C280800122528313869552e41805bb1', {
    name: 'Add port group to standard virtual switch',
    category: 'Standard Virtual Switch',
    inputs: [
      p('host', 'VC:HostSystem'),
      p('vSwitchName', 'string'),
      p('portGroupName', 'string'),
      p('vlanId', 'number'),
    ],
  }),
  builtIn('31C280800122528313869552e41805bb1', {
    name: 'Create standard virtual switch',
    category: 'Standard Virtual Switch',
    inputs: [p('host', 'VC:HostSystem'), p('name', 'string'), p('numPorts', 'number')],
  }),
  builtIn('32C280800122528313869552e41805bb1', {
    name: 'Create distributed virtual port group',
    version: '1.0.1',
    category: 'Distributed Virtual Port Group',
    inputs: [
      p('dvSwitch', 'VC:VmwareDistributedVirtualSwitch'),
      p('pgName', 'string'),
      p('numPorts', 'number'),
      p('vlanId', 'number'),
    ],
    outputs: [p('portGroup', 'VC:DistributedVirtualPortgroup')],
    results: (_inputs, run) => ({
      portGroup: {
        type: 'VC:DistributedVirtualPortgroup',
        id: `vcenter-01/dvportgroup-${60 + run}`,
      },
    }),
  }),
  builtIn('33C280800122528313869552e41805bb1', {
    name: 'Connect virtual machine NIC number to distributed virtual port group',
    category: 'Distributed Virtual Port Group',
    inputs: [vm(), p('nicNumber', 'number'), p('portGroup', 'VC:DistributedVirtualPortgroup')],
  }),
  builtIn('34C280800122528313869552e41805bb1', {
    name: 'Delete distributed virtual port group',
    category: 'Distributed Virtual Port Group',
    inputs: [p('portGroup', 'VC:DistributedVirtualPortgroup')],
  }),
  {
    id: '24933b83-7577-40a9-a491-f0b2ea1fca65',
    name: 'Allocate IP address from IPAM',
    description: 'Reserves the next free address of a network in the IPAM system.',
    version: '3.1.0',
    category: 'Networking',
    inputs: [p('networkCidr', 'string'), p('hostName', 'string'), p('dnsZone', 'string')],
    outputs: [p('ipAddress', 'string'), p('gateway', 'string'), p('prefixLength', 'number')],
    results: (_inputs, run) => ({
      ipAddress: `10.20.30.${(run % 200) + 10}`,
      gateway: '10.20.30.1',
      prefixLength: 24,
    }),
  },
  {
    id: 'beb79919-3f22-4af8-a3be-d01d43cf2fde',
    name: 'Release IP address to IPAM',
    version: '3.1.0',
    category: 'Networking',
    inputs: [p('ipAddress', 'string')],
    outputs: [p('released', 'boolean')],
  },
  {
    id: 'bf3c4c06-4343-48bc-89fa-6a688fb5d27b',
    name: 'Create DNS A record',
    version: '1.2.0',
    category: 'Networking',
    inputs: [
      p('hostName', 'string'),
      p('dnsZone', 'string'),
      p('ipAddress', 'string'),
      p('ttl', 'number'),
    ],
    outputs: [p('fqdn', 'string')],
    results: (inputs) => ({
      fqdn: `${text(inputs['hostName'], 'host')}.${text(inputs['dnsZone'], 'corp.local')}`,
    }),
  },
  {
    id: '956269f0-e5d7-4875-adad-d6c795a76d79',
    name: 'Add VMs to NSX security group',
    version: '2.0.0',
    category: 'Networking',
    inputs: [p('vms', 'Array/VC:VirtualMachine'), p('securityGroupId', 'string')],
    outputs: [p('members', 'number')],
  },
  {
    id: 'ff50bde4-3825-47b8-9cab-cc97663f1c97',
    name: 'Create load balancer virtual server',
    version: '1.0.5',
    category: 'Networking',
    inputs: [
      p('edgeId', 'string'),
      p('name', 'string'),
      p('ipAddress', 'string'),
      p('port', 'number'),
      p('poolMembers', 'Array/string'),
      p('options', 'Properties'),
    ],
    outputs: [p('virtualServerId', 'string')],
    results: (_inputs, run) => ({ virtualServerId: `virtualServer-${run}` }),
  },
  // ---------------------------------------------------------------- Active Directory
  builtIn('40C280800122528313869552e41805bb1', {
    name: 'Create a user with a password in an organizational unit',
    version: '1.0.2',
    category: 'User',
    inputs: [
      p('ou', 'AD:OrganizationalUnit'),
      p('accountName', 'string'),
      p('password', 'SecureString'),
      p('domainName', 'string'),
      p('displayName', 'string'),
      p('changePasswordAtNextLogon', 'boolean'),
    ],
    outputs: [p('user', 'AD:User')],
    results: (inputs) => ({
      user: {
        type: 'AD:User',
        id: `#_v2_#,#User#,#CN=${text(inputs['accountName'], 'user')},OU=Users,DC=corp,DC=local#`,
      },
    }),
  }),
  builtIn('41C280800122528313869552e41805bb1', {
    name: 'Change a user password',
    category: 'User',
    inputs: [
      p('user', 'AD:User'),
      p('password', 'SecureString'),
      p('confirmPassword', 'SecureString'),
    ],
  }),
  builtIn('42C280800122528313869552e41805bb1', {
    name: 'Disable a user',
    category: 'User',
    inputs: [p('user', 'AD:User')],
  }),
  builtIn('43C280800122528313869552e41805bb1', {
    name: 'Enable a user',
    category: 'User',
    inputs: [p('user', 'AD:User')],
  }),
  builtIn('44C280800122528313869552e41805bb1', {
    name: 'Destroy a user',
    category: 'User',
    inputs: [p('user', 'AD:User')],
  }),
  builtIn('45C280800122528313869552e41805bb1', {
    name: 'Add a user to a user group',
    category: 'User Group',
    inputs: [p('user', 'AD:User'), p('userGroup', 'AD:UserGroup')],
  }),
  builtIn('46C280800122528313869552e41805bb1', {
    name: 'Add users to group members',
    category: 'User Group',
    inputs: [p('users', 'Array/AD:User'), p('userGroup', 'AD:UserGroup')],
  }),
  builtIn('47C280800122528313869552e41805bb1', {
    name: 'Create a user group in an organizational unit',
    category: 'User Group',
    inputs: [p('ou', 'AD:OrganizationalUnit'), p('groupName', 'string'), p('domainName', 'string')],
    outputs: [p('newUserGroup', 'AD:UserGroup')],
  }),
  builtIn('48C280800122528313869552e41805bb1', {
    name: 'Create an organizational unit',
    category: 'Organizational Unit',
    inputs: [p('ouName', 'string'), p('ou', 'AD:OrganizationalUnit', 'Parent organizational unit')],
    outputs: [p('newOu', 'AD:OrganizationalUnit')],
  }),
  builtIn('49C280800122528313869552e41805bb1', {
    name: 'Destroy an organizational unit',
    category: 'Organizational Unit',
    inputs: [p('ou', 'AD:OrganizationalUnit'), p('deleteSubtree', 'boolean')],
  }),
  {
    id: '7e570ddf-8270-40a8-a369-b584ff5e9ff0',
    name: 'Onboard employee accounts',
    description: 'Creates the AD account, mailbox and home share of new employees.',
    version: '1.8.0',
    category: 'User',
    customIcon: true,
    inputs: [
      p('employees', 'Array/Properties', 'One entry per employee: firstName, lastName, department'),
      p('startDate', 'Date'),
      p('managerApproval', 'boolean'),
    ],
    outputs: [p('accounts', 'Array/string'), p('report', 'Properties')],
    phases: ['running', 'waiting', 'running'],
    results: (inputs) => {
      const employees = Array.isArray(inputs['employees']) ? inputs['employees'] : [];
      const accounts = employees.map((employee, index) => {
        const record = (employee ?? {}) as Record<string, unknown>;
        return `${text(record['firstName'], 'user')}.${text(record['lastName'], String(index))}`.toLowerCase();
      });
      return { accounts, report: { created: accounts.length, failed: 0 } };
    },
  },
  // ---------------------------------------------------------------- vRA
  {
    id: '6e04a460-4a45-4e16-9603-db2922c24462',
    name: 'Request Component',
    version: '0.0.33',
    category: 'vCAC',
    inputs: [
      p('coreCount', 'string'),
      p('ramMB', 'string'),
      p('onBehalfOf', 'string'),
      p('machineCount', 'string'),
      p('businessUnit', 'string'),
      p('reservation', 'string'),
      p('location', 'string'),
      p('environment', 'string'),
      p('image', 'string', 'vCenter template name'),
      p('runlist', 'Array/string', 'Chef Runlist for first run.  Leave empty for no Chef'),
      p('nodename', 'string', 'Chef Nodename'),
      p('component', 'string'),
      p('attributesJS', 'string', 'JSON object of vCenter Attributes to apply to VM(s)'),
    ],
    outputs: [
      p('result', 'string', 'Catalog item request state'),
      p('requestNumber', 'number'),
      p('requestCompletionDetails', 'string'),
    ],
    results: (_inputs, run) => ({
      result: 'SUCCESSFUL',
      requestNumber: 325 + run,
      requestCompletionDetails: `Request succeeded. Created vm${String(377 + run).padStart(5, '0')}.`,
    }),
  },
  builtIn('50C280800122528313869552e41805bb1', {
    name: 'Add a vCAC host',
    version: '7.0.0',
    category: 'vRA Helpers',
    inputs: [
      p('hostName', 'string'),
      p('hostUrl', 'string'),
      p('tenant', 'string'),
      p('username', 'string'),
      p('password', 'SecureString'),
    ],
    outputs: [p('vcacHost', 'vCACCAFE:VCACHost')],
  }),
  builtIn('51C280800122528313869552e41805bb1', {
    name: 'Request a catalog item',
    version: '7.0.0',
    category: 'vRA Helpers',
    inputs: [p('item', 'vCACCAFE:CatalogItem'), p('inputs', 'Properties'), p('reason', 'string')],
    outputs: [p('request', 'vCACCAFE:Request')],
    results: (_inputs, run) => ({
      request: {
        type: 'vCACCAFE:Request',
        id: `7aaf9baf-aa4e-47c4-997b-edd7c7983a${String(run % 100).padStart(2, '0')}`,
      },
    }),
  }),
  builtIn('52C280800122528313869552e41805bb1', {
    name: 'Get catalog item by name',
    version: '7.0.0',
    category: 'vRA Helpers',
    inputs: [p('host', 'vCACCAFE:VCACHost'), p('name', 'string')],
    outputs: [p('item', 'vCACCAFE:CatalogItem')],
  }),
  {
    id: '366eb16f-508e-4ad7-b7c9-3acfe059a0ee',
    name: 'Publish blueprint as catalog item',
    description: 'Registers a provider catalog item for an infrastructure blueprint.',
    version: '1.0.0',
    category: 'vRA Helpers',
    inputs: [p('virtualMachineTemplateId', 'string'), p('name', 'string'), p('tenant', 'string')],
    outputs: [p('catalogItemId', 'string')],
  },
  {
    id: '9132b63e-f162-47e4-a9c3-49e03602f8ac',
    name: 'Set custom properties on deployment',
    version: '1.1.0',
    category: 'vRA Helpers',
    inputs: [p('deploymentId', 'string'), p('properties', 'Properties')],
    outputs: [p('updated', 'Properties')],
    results: (inputs) => ({ updated: inputs['properties'] ?? {} }),
  },
  // ---------------------------------------------------------------- Provisioning
  {
    id: 'a9488d99-0bbb-4599-91ce-5dd2b45ed1f0',
    name: 'Provision Linux VM',
    description: 'Clones, customizes, registers in DNS and IPAM, and powers on a Linux VM.',
    version: '4.2.1',
    category: 'Provisioning',
    customIcon: true,
    inputs: [
      p('hostname', 'string'),
      p('environment', 'string', 'dev, test or prod'),
      p('cpu', 'number'),
      p('memoryGB', 'number'),
      p('disks', 'Array/number', 'Extra disk sizes in GB'),
      p('networks', 'Array/string'),
      p('tags', 'Properties'),
      p('expiresOn', 'Date'),
    ],
    outputs: [vm('vm'), p('ipAddresses', 'Array/string'), p('fqdn', 'string'), p('cost', 'number')],
    phases: ['running', 'running', 'running'],
    results: (inputs, run) => ({
      vm: vmRef(5000 + run),
      ipAddresses: [`10.20.30.${(run % 200) + 10}`],
      fqdn: `${text(inputs['hostname'], 'linux')}.corp.local`,
      cost: 12.5,
    }),
  },
  {
    id: 'fc377a4c-4a15-444d-85e7-ce8a3a578a8e',
    name: 'Provision Windows VM',
    version: '4.0.0',
    category: 'Provisioning',
    inputs: [
      p('hostname', 'string'),
      p('environment', 'string'),
      p('cpu', 'number'),
      p('memoryGB', 'number'),
      p('joinDomain', 'boolean'),
      p('localAdminPassword', 'SecureString'),
    ],
    outputs: [vm('vm'), p('fqdn', 'string')],
    phases: ['running', 'running', 'running', 'running'],
  },
  {
    id: 'ddd1dfb2-3b98-4ef8-9af6-1a26146d3f31',
    name: 'Decommission VM',
    description: 'Powers off, removes from DNS and IPAM, and deletes a VM after a grace period.',
    version: '2.0.3',
    category: 'Provisioning',
    inputs: [vm(), p('gracePeriodHours', 'number'), p('ticket', 'string')],
    outputs: [p('deleted', 'boolean'), p('deletedAt', 'Date')],
  },
  {
    id: '7412b293-4729-4739-a14f-f3d719db3ad0',
    name: 'Expand VM disk',
    version: '1.0.7',
    category: 'Provisioning',
    inputs: [vm(), p('diskNumber', 'number'), p('newSizeGB', 'number')],
    outputs: [p('newSizeGB', 'number')],
    results: (inputs) => ({ newSizeGB: inputs['newSizeGB'] ?? 100 }),
  },
  // ---------------------------------------------------------------- Guest Operations
  builtIn('60C280800122528313869552e41805bb1', {
    name: 'Run program in guest',
    category: 'Guest Operations',
    inputs: [
      ...guestLogin,
      p('programPath', 'string'),
      p('arguments', 'string'),
      p('environment', 'Array/string'),
    ],
    outputs: [p('result', 'number', 'Process id')],
    results: (_inputs, run) => ({ result: 4000 + run }),
  }),
  builtIn('61C280800122528313869552e41805bb1', {
    name: 'Copy file from vCO to guest',
    category: 'Guest Operations',
    inputs: [
      ...guestLogin,
      p('vcoPath', 'string'),
      p('guestPath', 'string'),
      p('overwrite', 'boolean'),
    ],
  }),
  // ---------------------------------------------------------------- Testing
  {
    id: '29a3b2e9-5d65-4441-9588-42dea2bc372f',
    name: 'Always fails',
    description: 'Fails in its first step. For testing error handling.',
    version: '1.0.0',
    category: 'Testing',
    inputs: [p('message', 'string')],
    outputs: [p('result', 'string')],
    failure:
      'Error in (Workflow:Always fails / Scriptable task (item1)#3) Deliberate failure for testing',
  },
  {
    id: 'aefcfad8-efc8-4849-b3aa-7efe4458a885',
    name: 'Echo parameters',
    description: 'Returns its inputs unchanged. For testing parameter encoding.',
    version: '1.0.0',
    category: 'Testing',
    inputs: [...echoedValues, p('secret', 'SecureString'), ...echoedVms],
    outputs: [...echoedValues, ...echoedVms],
    results: (inputs) =>
      Object.fromEntries(
        [...echoedValues, ...echoedVms].map(({ name }) => [name, inputs[name] ?? null]),
      ),
  },
  {
    id: 'a28defe3-9bf0-4273-9247-6f57a5e5a5ab',
    name: 'Wait for signal',
    description: 'Waits for an external signal before completing.',
    version: '1.0.0',
    category: 'Testing',
    inputs: [p('timeoutMinutes', 'number')],
    outputs: [p('signaled', 'boolean')],
    phases: ['running', 'waiting-signal', 'waiting-signal', 'running'],
  },
  {
    id: '3eabedcb-baa8-4dd4-88bd-64072bcfbe01',
    name: 'No-op',
    description: 'Does nothing. Takes no input.',
    version: '1.0.0',
    category: 'Testing',
    canEdit: false,
    inputs: [],
    outputs: [],
  },
];
