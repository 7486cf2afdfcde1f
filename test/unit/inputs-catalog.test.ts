import { describe, expect, it } from 'vitest';
import type { RegisterCatalogItemInput } from '../../src/generated/graphql.ts';
import {
  checkActionRequest,
  checkBlueprintRegistration,
  checkItemRequest,
  checkProviderId,
  checkProviderName,
  checkRegistration,
  checkRequestData,
  checkVraId,
} from '../../src/inputs/catalog.ts';
import { badInput } from '../helpers/thrown.ts';

const common = {
  name: 'CentOS 9',
  description: '',
  iconId: 'centos.png',
  catalogItemTypeId: 'com.vmware.csp.iaas.blueprint.service.machine',
  outputResourceTypeId: 'Infrastructure.Virtual',
  organization: { tenantRef: 'qe', tenantLabel: 'QE' },
};
const input: RegisterCatalogItemInput = {
  providerId: '6c1f4cc9-4806-4337-899e-50da870b3ed9',
  bindingId: '0f3a9d5e-7a0e-4d5b-9a53-3c1f1b2a4e11',
  ...common,
};

describe('a registration input', () => {
  it('builds the register body with id = bindingId and nulls for what is absent', () => {
    expect(checkRegistration(input)).toEqual({
      providerId: input.providerId,
      item: {
        id: input.bindingId,
        name: 'CentOS 9',
        description: '',
        iconId: 'centos.png',
        catalogItemTypeId: input.catalogItemTypeId,
        organization: {
          tenantRef: 'qe',
          tenantLabel: 'QE',
          subtenantRef: null,
          subtenantLabel: null,
        },
        outputResourceTypeId: 'Infrastructure.Virtual',
        forms: null,
      },
    });
  });

  it('accepts the composite binding ids real items carry', () => {
    expect(checkRegistration({ ...input, bindingId: 'vsphere.local!::!CentOS63' }).item.id).toBe(
      'vsphere.local!::!CentOS63',
    );
  });

  it.each([
    ['providerId', { providerId: 'iaas-service' }],
    ['providerId', { providerId: '../../identity' }],
    ['bindingId', { bindingId: '../tokens' }],
    ['bindingId', { bindingId: 'a b' }],
    ['bindingId', { bindingId: '' }],
    ['name', { name: '  ' }],
    ['iconId', { iconId: '' }],
    ['catalogItemTypeId', { catalogItemTypeId: '' }],
    ['outputResourceTypeId', { outputResourceTypeId: '' }],
    ['organization.tenantRef', { organization: { tenantRef: '', tenantLabel: 'QE' } }],
    [
      'organization.subtenantRef',
      { organization: { tenantRef: 'qe', tenantLabel: 'QE', subtenantRef: '' } },
    ],
    ['forms', { forms: [1, 2] }],
    ['forms', { forms: 'form' }],
  ])('refuses a bad %s', (field, change) => {
    const error = badInput(() => checkRegistration({ ...input, ...change }));
    expect(error.extensions['code']).toBe('BAD_USER_INPUT');
    expect(error.extensions['argument']).toBe(`input.${field}`);
    expect(error.message).toContain(`input.${field}`);
  });

  it('names every problem at once', () => {
    const error = badInput(() => checkRegistration({ ...input, name: '', iconId: '' }));
    expect(error.message).toContain('input.name');
    expect(error.message).toContain('input.iconId');
  });

  it('publishes a blueprint with id = bindingId = virtualMachineTemplateId', () => {
    const rest = { ...common };
    const item = checkBlueprintRegistration({
      ...rest,
      virtualMachineTemplateId: 'b9e4a3f2-9d0c-4f1e-8d7a-2c3b4a5d6e7f',
      forms: { catalogRequestInfoHidden: true },
    });
    expect(item.id).toBe('b9e4a3f2-9d0c-4f1e-8d7a-2c3b4a5d6e7f');
    expect(item.forms).toEqual({ catalogRequestInfoHidden: true });
    expect(() =>
      checkBlueprintRegistration({ ...rest, virtualMachineTemplateId: 'x', providerName: ' ' }),
    ).toThrow(/input\.providerName/);
  });
});

describe('ids and names of the catalog', () => {
  it.each(['0f3a9d5e-7a0e-4d5b-9a53-3c1f1b2a4e11', 'vsphere.local!::!CentOS63', 'bg@corp.local'])(
    'accepts the vRA id %s',
    (id) => {
      expect(checkVraId(id, 'id')).toBe(id);
    },
  );

  it.each(['', '../requests', 'a b', 'a/b', 'a?b', '-lead', 'x'.repeat(256)])(
    'refuses the vRA id %j naming the argument',
    (id) => {
      const error = badInput(() => checkVraId(id, 'input.resourceId'));
      expect(error.extensions['argument']).toBe('input.resourceId');
      expect(error.message).toMatch(/^input\.resourceId must be a vRA id/);
    },
  );

  it('takes a provider id only as a UUID', () => {
    expect(checkProviderId('6C1F4CC9-4806-4337-899E-50DA870B3ED9', 'id')).toBe(
      '6C1F4CC9-4806-4337-899E-50DA870B3ED9',
    );
    expect(badInput(() => checkProviderId('iaas-service', 'id')).message).toBe(
      'id must be a provider id (a UUID).',
    );
  });

  it('refuses a blank provider name', () => {
    expect(checkProviderName('iaas-service', 'name')).toBe('iaas-service');
    expect(badInput(() => checkProviderName(' ', 'name')).extensions['argument']).toBe('name');
  });
});

describe('the data of a request', () => {
  it('refuses data that is not a JSON object', () => {
    for (const data of [[1], 'cpu=2', 2, true]) {
      expect(badInput(() => checkRequestData(data)).extensions['argument']).toBe('input.data');
    }
  });

  it('takes a JSON object, and no data as none', () => {
    expect(checkRequestData(null)).toBeUndefined();
    expect(checkRequestData(undefined)).toBeUndefined();
    expect(checkRequestData({ a: 1 })).toEqual({ a: 1 });
  });
});

describe('a request of an item or an action', () => {
  it('answers the checked ids and the edits of the template', () => {
    expect(
      checkItemRequest({
        catalogItemId: 'item-1',
        businessGroupId: 'bg-2',
        description: 'web',
        data: { _leaseDays: 3 },
      }),
    ).toEqual({
      catalogItemId: 'item-1',
      edits: {
        data: { _leaseDays: 3 },
        description: 'web',
        reasons: undefined,
        businessGroupId: 'bg-2',
      },
    });
    expect(checkActionRequest({ resourceId: 'res-1', actionId: 'act-1', reasons: 'r' })).toEqual({
      resourceId: 'res-1',
      actionId: 'act-1',
      edits: { data: undefined, description: undefined, reasons: 'r' },
    });
  });

  it.each([
    ['input.catalogItemId', () => checkItemRequest({ catalogItemId: '../x' })],
    [
      'input.businessGroupId',
      () => checkItemRequest({ catalogItemId: 'i', businessGroupId: 'a b' }),
    ],
    ['input.data', () => checkItemRequest({ catalogItemId: 'i', data: [1] })],
    ['input.resourceId', () => checkActionRequest({ resourceId: '', actionId: 'a' })],
    ['input.actionId', () => checkActionRequest({ resourceId: 'r', actionId: 'a/b' })],
    ['input.data', () => checkActionRequest({ resourceId: 'r', actionId: 'a', data: 'cpu=2' })],
  ])('refuses a bad %s', (argument, run) => {
    expect(badInput(run).extensions['argument']).toBe(argument);
  });
});
