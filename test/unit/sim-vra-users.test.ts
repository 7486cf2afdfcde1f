import { describe, expect, it } from 'vitest';
import { ConsumerState } from '../../simulators/vra/v7/consumer.ts';
import { qualityGroup } from '../../simulators/vra/v7/consumer-seed.ts';
import { TokenStore } from '../../simulators/vra/v7/identity.ts';
import { simulatorUsers, type SimUser } from '../../simulators/vra/users.ts';

function state(users: readonly SimUser[] = simulatorUsers) {
  return new ConsumerState({
    tenant: 'vsphere.local',
    serviceUser: 'svc',
    users,
    now: () => 0,
    stepMs: 100,
  });
}

const entitledNames = (consumer: ConsumerState, user: string): string[] =>
  consumer.items.filter((item) => consumer.entitled(user, item)).map((item) => item.name);

describe('entitlements of the simulated vRA users', () => {
  it('entitles a user to an item when they are in one of its groups and in its named users, if it names any', () => {
    const consumer = state();
    expect(entitledNames(consumer, 'svc')).toHaveLength(4);
    expect(entitledNames(consumer, 'dba@vsphere.local')).toEqual([
      'CentOS 7 Machine',
      'Three-tier Web Application',
      'Oracle Database (restricted)',
    ]);
    expect(entitledNames(consumer, 'developer@vsphere.local')).toEqual([
      'CentOS 7 Machine',
      'Three-tier Web Application',
    ]);
    expect(entitledNames(consumer, 'tester@vsphere.local')).toEqual([
      'Three-tier Web Application',
      'Windows Server 2019',
    ]);
  });

  it('treats a user it does not know of, or one given without groups, as a member of every group', () => {
    const consumer = state([{ username: 'jane', password: 'x' }]);
    expect(entitledNames(consumer, 'jane')).toHaveLength(3);
    expect(entitledNames(consumer, 'someone')).toHaveLength(3);
    expect(consumer.groupsOf('jane', consumer.items[1]!)).toHaveLength(2);
  });

  it("hands out templates in the first of the caller's groups among the item's", () => {
    const consumer = state();
    const webApp = consumer.items[1]!;
    expect(consumer.template(webApp, 'tester@vsphere.local')['businessGroupId']).toBe(
      qualityGroup.id,
    );
  });
});

describe('the simulated identity service', () => {
  it("expires one user's tokens and leaves the others valid", () => {
    const tokens = new TokenStore(60_000);
    const mine = tokens.issue('dba@vsphere.local', 'vsphere.local').id;
    const theirs = tokens.issue('tester@vsphere.local', 'vsphere.local').id;
    tokens.expireOf('dba@vsphere.local');
    expect(tokens.isValid(mine)).toBe(false);
    expect(tokens.userOf(theirs)).toBe('tester@vsphere.local');
  });
});
