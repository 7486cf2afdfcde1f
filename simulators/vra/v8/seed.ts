/**
 * What a fresh vRA 8 simulator holds: projects analogous to the vRA 7
 * simulator's business groups, their members (the same three accounts), and
 * released cloud templates already imported into the catalog and shared.
 */
import { simulatorUsers } from '../users.ts';

export interface Vra8Project {
  id: string;
  name: string;
  description: string;
}

export interface Vra8User {
  username: string;
  password: string;
  /** Project ids; undefined: every project (the service account). */
  projects?: readonly string[] | undefined;
}

export const developmentProject: Vra8Project = {
  id: '6c1a2e64-7d36-4c1b-9d9a-1f0e5b0a1001',
  name: 'Development',
  description: 'Developers of the business applications',
};
export const qualityProject: Vra8Project = {
  id: '6c1a2e64-7d36-4c1b-9d9a-1f0e5b0a1002',
  name: 'Quality Engineering',
  description: 'Test environments',
};
export const databaseAdministratorsProject: Vra8Project = {
  id: '6c1a2e64-7d36-4c1b-9d9a-1f0e5b0a1003',
  name: 'Database Administrators',
  description: 'Database servers',
};

export const seededProjects: readonly Vra8Project[] = [
  developmentProject,
  qualityProject,
  databaseAdministratorsProject,
];

const projectsOf: Record<string, readonly string[]> = {
  'dba@vsphere.local': [developmentProject.id, databaseAdministratorsProject.id],
  'developer@vsphere.local': [developmentProject.id],
  'tester@vsphere.local': [qualityProject.id],
};

/** The vRA 7 simulator's accounts, with the same passwords, members of the analogous projects. */
export const vra8Users: readonly Vra8User[] = simulatorUsers.map((user) => ({
  username: user.username,
  password: user.password,
  projects: projectsOf[user.username] ?? [],
}));

/** A released cloud template of the seed, imported into the catalog and shared with `sharedWith`. */
export interface SeededTemplate {
  id: string;
  name: string;
  description: string;
  projectId: string;
  version: string;
  content: string;
  sharedWith: readonly string[];
}

const machine = (cpu: number, memory: number, extra = ''): string =>
  `formatVersion: 1
inputs:
  hostname:
    type: string
    title: Host name
    minLength: 1
    maxLength: 63
  size:
    type: string
    title: Size
    enum: [small, medium, large]
    default: small
  cpuCount:
    type: integer
    title: CPUs
    minimum: 1
    maximum: 8
    default: ${cpu}
${extra}resources:
  Cloud_vSphere_Machine_1:
    type: Cloud.vSphere.Machine
    properties:
      cpuCount: '\${input.cpuCount}'
      totalMemoryMB: ${memory}
`;

export const seededTemplates: readonly SeededTemplate[] = [
  {
    id: '0f2d9a43-1c55-4a53-8d0e-5f7a3b2c2001',
    name: 'CentOS 8 Machine',
    description: 'A CentOS 8 virtual machine',
    projectId: developmentProject.id,
    version: '1',
    content: machine(1, 2048),
    sharedWith: [developmentProject.id, qualityProject.id],
  },
  {
    id: '0f2d9a43-1c55-4a53-8d0e-5f7a3b2c2002',
    name: 'PostgreSQL Database',
    description: 'A PostgreSQL 13 server',
    projectId: databaseAdministratorsProject.id,
    version: '2',
    content: machine(
      2,
      8192,
      `  databaseName:
    type: string
    title: Database name
`,
    ),
    sharedWith: [databaseAdministratorsProject.id],
  },
  {
    id: '0f2d9a43-1c55-4a53-8d0e-5f7a3b2c2003',
    name: 'Windows Server 2019',
    description: 'A Windows Server 2019 virtual machine',
    projectId: qualityProject.id,
    version: '1',
    content: machine(2, 8192),
    sharedWith: [qualityProject.id],
  },
];
