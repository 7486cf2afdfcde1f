import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { UpstreamBadResponseError } from '../../src/errors.ts';
import {
  decodeCatalogItem,
  decodePage,
  decodeProvider,
  decodeToken,
  parseJson,
} from '../../src/upstreams/vra/decode.ts';
import type { WireProviderCatalogItem } from '../../src/upstreams/vra/wire.ts';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../fixtures/vra/${name}`, import.meta.url), 'utf8'));

const registration: WireProviderCatalogItem = {
  id: '0f3a9d5e-7a0e-4d5b-9a53-3c1f1b2a4e11',
  name: 'CentOS 9',
  description: 'Stream',
  iconId: 'centos.png',
  catalogItemTypeId: 'com.vmware.csp.iaas.blueprint.service.machine',
  organization: { tenantRef: 'qe', tenantLabel: 'QE', subtenantRef: null, subtenantLabel: null },
  outputResourceTypeId: 'Infrastructure.Virtual',
  forms: null,
};

describe('vRA decoding', () => {
  it('reads the token answer of the identity service', () => {
    const token = decodeToken(fixture('identity-token.json'), 200);
    expect(token.id).toMatch(/^MTU1/);
    expect(token.expiresAt).toBe(Date.parse('2019-02-26T03:32:35.000Z'));
  });

  it.each([
    {},
    { id: 'x' },
    { id: 'x', expires: 'soon' },
    { id: '', expires: '2019-01-01T00:00:00Z' },
  ])('refuses the token answer %j', (body) => {
    expect(() => decodeToken(body, 200)).toThrow(UpstreamBadResponseError);
  });

  it('reads a real catalog item', () => {
    const { catalogItem } = fixture('entitled-catalog-item.json') as { catalogItem: unknown };
    const item = decodeCatalogItem(catalogItem, 200);
    expect(item.id).toBe('e5dd4fba-45ed-4943-b1fc-7f96239286be');
    expect(item.catalogItemTypeRef?.id).toBe('com.vmware.csp.component.cafe.composition.blueprint');
    expect(item.providerBinding?.providerRef?.id).toBe('2fbaabc5-3a48-488a-9f2a-a42616345445');
    expect(item.organization?.subtenantRef).toBeNull();
  });

  it('turns an answer in the register body shape into the listed shape', () => {
    const item = decodeCatalogItem(registration, 200, 'provider-1');
    expect(item.catalogItemTypeRef).toEqual({ id: registration.catalogItemTypeId, label: null });
    expect(item.outputResourceTypeRef).toEqual({ id: 'Infrastructure.Virtual', label: null });
    expect(item.providerBinding).toEqual({
      bindingId: registration.id,
      providerRef: { id: 'provider-1', label: null },
    });
    expect(item).not.toHaveProperty('catalogItemTypeId');
  });

  it.each([
    ['no id', { name: 'x' }],
    ['a numeric name', { id: 'x', name: 1 }],
    ['a ref without id', { id: 'x', name: 'y', catalogItemTypeRef: { label: 'z' } }],
    ['an organization without tenant', { id: 'x', name: 'y', organization: { tenantLabel: 'q' } }],
  ])('refuses a catalog item with %s', (_what, body) => {
    expect(() => decodeCatalogItem(body, 200)).toThrow(UpstreamBadResponseError);
  });

  it('reads a page and refuses one without whole metadata', () => {
    const page = decodePage(
      {
        links: [],
        content: [{ id: 'a', name: 'iaas-service', providerTypeId: 't' }],
        metadata: { size: 20, totalElements: 1, totalPages: 1, number: 1, offset: 0 },
      },
      200,
      decodeProvider,
    );
    expect(page.content[0]?.name).toBe('iaas-service');
    expect(() => decodePage({ content: [], metadata: { size: 20 } }, 200, decodeProvider)).toThrow(
      /totalElements/,
    );
    expect(() => decodePage({ content: {} }, 200, decodeProvider)).toThrow(
      UpstreamBadResponseError,
    );
  });

  it('reports a body that is not JSON as a bad response with its status', () => {
    try {
      parseJson('{"content":[', 200);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(UpstreamBadResponseError);
      expect((error as UpstreamBadResponseError).upstream).toMatchObject({
        service: 'vra',
        status: 200,
      });
    }
  });
});
