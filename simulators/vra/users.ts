import { databaseAdministratorsGroup, developmentGroup, qualityGroup } from './v7/consumer-seed.ts';

/** An account of the tenant that may sign in. */
export interface SimUser {
  username: string;
  password: string;
  /** Ids of the business groups it is a member of; undefined: every group (as the service account). */
  groups?: readonly string[] | undefined;
}

export interface SimulatorUser extends SimUser {
  displayName: string;
  groups: readonly string[];
}

/** The accounts the simulator knows by default, besides its service account. */
export const simulatorUsers: readonly SimulatorUser[] = [
  {
    username: 'dba@vsphere.local',
    password: 'dba-simulator',
    displayName: 'Database Administrator',
    groups: [developmentGroup.id, databaseAdministratorsGroup.id],
  },
  {
    username: 'developer@vsphere.local',
    password: 'developer-simulator',
    displayName: 'Developer',
    groups: [developmentGroup.id],
  },
  {
    username: 'tester@vsphere.local',
    password: 'tester-simulator',
    displayName: 'Tester',
    groups: [qualityGroup.id],
  },
];

/** Business group ids of each user given with groups; the others are members of every group. */
export function membershipsOf(users: readonly SimUser[]): Map<string, readonly string[]> {
  const memberships = new Map<string, readonly string[]>();
  for (const user of users)
    if (user.groups !== undefined) memberships.set(user.username, user.groups);
  return memberships;
}
