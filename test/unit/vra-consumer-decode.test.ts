import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { UpstreamBadResponseError } from '../../src/errors.ts';
import {
  createdRequestId,
  decodeCatalogRequest,
  decodeCatalogResource,
  decodeEntitledCatalogItemView,
  decodeRequestTemplate,
  isFinalRequest,
  requestChanged,
} from '../../src/upstreams/vra/consumer-decode.ts';
import { decodePage } from '../../src/upstreams/vra/decode.ts';
import { plainEntries, plainLiteral } from '../../src/upstreams/vra/literals.ts';

const fixture = (name: string): any =>
  JSON.parse(readFileSync(new URL(`../fixtures/vra/${name}`, import.meta.url), 'utf8'));

describe('the consumer API decoders', () => {
  it('read the captured entitled catalog item views', () => {
    const page = decodePage(
      fixture('entitled-catalog-item-views.json'),
      200,
      decodeEntitledCatalogItemView,
    );
    expect(page.metadata.totalElements).toBe(4);
    expect(page.content[0]).toMatchObject({
      catalogItemId: '2e13fd45-a85e-4985-b89e-4ebb19ab272c',
      name: 'NoSoftwareMachine',
      entitledOrganizations: [
        { subtenantRef: 'b2470b94-cbca-43db-be37-803cca7b0f1a', subtenantLabel: 'Development' },
      ],
    });
  });

  it('read the captured request template as it is', () => {
    const template = fixture('request-template.json');
    expect(decodeRequestTemplate(template, 200)).toEqual(template);
    expect(() => decodeRequestTemplate([template], 200)).toThrow(UpstreamBadResponseError);
    expect(() => decodeRequestTemplate({ data: 'x' }, 200)).toThrow(UpstreamBadResponseError);
  });

  it('read the captured request in progress; final comes from vRA, else from the state', () => {
    const request = decodeCatalogRequest(fixture('request-status.json'), 200);
    expect(request).toMatchObject({
      id: 'adca9535-4a35-4981-8864-28643bd990b0',
      state: 'IN_PROGRESS',
      phase: 'IN_PROGRESS',
      final: false,
      requestNumber: 424,
      catalogItemRef: { id: 'feaedf73-560c-4612-a573-41667e017691' },
    });
    expect(isFinalRequest(request)).toBe(false);
    expect(isFinalRequest({ id: 'r', state: 'FAILED' })).toBe(true);
    expect(isFinalRequest({ id: 'r', state: 'SUBMITTED' })).toBe(false);
    expect(isFinalRequest({ id: 'r', state: 'SUCCESSFUL', final: false })).toBe(false);
  });

  it('tells subscribers of a change of state, phase or final only', () => {
    const base = { id: 'r', state: 'IN_PROGRESS', phase: 'IN_PROGRESS', final: false } as const;
    expect(requestChanged(undefined, base)).toBe(true);
    expect(requestChanged(base, { ...base, requestNumber: 5, description: 'x' })).toBe(false);
    expect(requestChanged(base, { ...base, phase: 'PENDING_POST_APPROVAL' })).toBe(true);
    expect(requestChanged(base, { ...base, state: 'PENDING_POST_APPROVAL' })).toBe(true);
    expect(requestChanged(base, { ...base, final: true })).toBe(true);
  });

  it('reads a finer vRA state as its phase', () => {
    const request = fixture('request-status.json');
    expect(
      decodeCatalogRequest({ ...request, state: 'PROVIDER_COMPLETED', phase: 'IN_PROGRESS' }, 200)
        .state,
    ).toBe('IN_PROGRESS');
  });

  it('refuses a request with an unknown state or mistyped fields', () => {
    const request = fixture('request-status.json');
    expect(() => decodeCatalogRequest({ ...request, state: 'DONE', phase: 'DONE' }, 200)).toThrow(
      UpstreamBadResponseError,
    );
    expect(() => decodeCatalogRequest({ ...request, final: 'yes' }, 200)).toThrow(
      UpstreamBadResponseError,
    );
    expect(() => decodeCatalogRequest({ state: 'SUBMITTED' }, 200)).toThrow(
      UpstreamBadResponseError,
    );
  });

  it('read the captured resources of a request', () => {
    const page = decodePage(fixture('request-resources.json'), 200, decodeCatalogResource);
    expect(page.content.map((r) => r.resourceTypeRef?.id)).toEqual([
      'composition.resource.type.deployment',
      'Infrastructure.Virtual',
    ]);
    expect(page.content[1]?.operations?.find((o) => o.name === 'Power Off')).toMatchObject({
      id: '8f664760-5d2d-4e97-8ae3-7fa515144f72',
      type: 'ACTION',
    });
  });

  it('take a created request from the body, else from the Location', () => {
    const body = JSON.stringify(fixture('request-status.json'));
    expect(createdRequestId(body, undefined, 201).id).toBe('adca9535-4a35-4981-8864-28643bd990b0');
    const location =
      'https://vra.example/catalog-service/api/consumer/requests/7aaf9baf-aa4e-47c4-997b-edd7c7983a5b';
    expect(createdRequestId('', location, 201)).toEqual({
      id: '7aaf9baf-aa4e-47c4-997b-edd7c7983a5b',
      request: undefined,
    });
    expect(createdRequestId('', `${location}/`, 201).id).toBe(
      '7aaf9baf-aa4e-47c4-997b-edd7c7983a5b',
    );
    expect(() => createdRequestId('', undefined, 201)).toThrow(UpstreamBadResponseError);
  });
});

describe('typed literals as plain JSON', () => {
  it('unwrap the captured machine data: scalars, dates, decimals, complex and multiple', () => {
    const machine = fixture('request-resources.json').content[1];
    const data = plainEntries(machine.resourceData.entries);
    expect(data).toMatchObject({
      MachineCPU: 2,
      MachineMemory: 1024,
      MachineGuestOperatingSystem: null,
      MachineInterfaceType: 'vSphere',
      MachineExpirationDate: '2019-03-04T00:59:31.527Z',
      PowerOff: true,
      MachineDailyCost: 0,
      DISK_VOLUMES: [
        { DISK_INPUT_ID: 'DISK_INPUT_ID1', DISK_CAPACITY: 8, DISK_LABEL: 'Hard disk 1' },
      ],
    });
    expect(JSON.stringify(data)).not.toContain('"type"');
  });

  it('unwrap the nested components of the captured request data', () => {
    const data = plainEntries(fixture('request-status.json').requestData.entries);
    expect(data['provider-_leaseDays']).toBe(5);
    expect(data['provider-machine2.vsphere']).toMatchObject({
      memory: 1024,
      snapshot_name: null,
      disks: [{ is_clone: true, volumeId: '0', label: 'Hard disk 1' }],
      security_tags: [],
    });
  });

  it('keep a literal of another shape without its type, and own keys as data', () => {
    expect(plainLiteral({ type: 'timeSpan', unit: 'DAYS', amount: 5 })).toEqual({
      unit: 'DAYS',
      amount: 5,
    });
    const odd = plainEntries([{ key: '__proto__', value: { type: 'string', value: 'x' } }]);
    expect(Object.getPrototypeOf(odd)).toBe(Object.prototype);
    expect(Object.keys(odd)).toEqual(['__proto__']);
  });
});
