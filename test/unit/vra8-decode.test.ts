import { describe, expect, it } from 'vitest';
import { readVra8ErrorBody } from '../../src/upstreams/vra/v8/error-body.ts';
import {
  asVra7Page,
  decodeCatalogItem8,
  decodeRequest8,
  skipTop,
  toCatalogRequest,
  toRequestTemplate,
  tokenExpiry,
  defaultTokenLifetimeMs,
} from '../../src/upstreams/vra/v8/decode.ts';
import { isFinalRequest } from '../../src/upstreams/vra/consumer-decode.ts';
import { UpstreamBadResponseError } from '../../src/errors.ts';

const request = (status: string) =>
  decodeRequest8(
    {
      id: 'r1',
      name: 'Create',
      status,
      requestedBy: 'dev',
      createdAt: '2024-01-01T00:00:00Z',
      completedTasks: 0,
      totalTasks: 1,
      actionId: 'Create.Deployment',
      catalogItemId: 'item-1:2',
    },
    200,
  );

describe('vRA 8 translations', () => {
  it.each([
    ['CREATED', 'SUBMITTED', false],
    ['PENDING', 'SUBMITTED', false],
    ['APPROVAL_PENDING', 'PENDING_PRE_APPROVAL', false],
    ['INPROGRESS', 'IN_PROGRESS', false],
    ['COMPLETION', 'IN_PROGRESS', false],
    ['SUCCESSFUL', 'SUCCESSFUL', true],
    ['FAILED', 'FAILED', true],
    ['ABORTED', 'FAILED', true],
    ['APPROVAL_REJECTED', 'REJECTED', true],
  ])(
    'maps a deployment request %s to the state %s (final: %s), keeping it as the phase',
    (status, state, final) => {
      const mapped = toCatalogRequest(request(status));
      expect(mapped).toMatchObject({ state, phase: status, catalogItemRef: { id: 'item-1' } });
      expect(isFinalRequest(mapped)).toBe(final);
    },
  );

  it('refuses a request status outside the spec enum as a bad response', () => {
    expect(() => request('DONE')).toThrow(UpstreamBadResponseError);
  });

  it('turns vRA 7 pages into $skip/$top and vRA 8 pages back into 1-based metadata', () => {
    expect(skipTop({ page: 3, limit: 20 })).toEqual({ $skip: 40, $top: 20 });
    const page = asVra7Page({ content: [1, 2], totalElements: 42 }, { page: 3, limit: 20 }, String);
    expect(page).toEqual({
      content: ['1', '2'],
      metadata: { size: 20, totalElements: 42, totalPages: 3, number: 3, offset: 40 },
    });
  });

  it("builds a request template from the item schema defaults, the caller's first project its business group", () => {
    const item = decodeCatalogItem8(
      {
        id: 'i1',
        name: 'Item',
        projectIds: ['p1', 'p2'],
        type: { id: 'com.vmw.blueprint' },
        schema: { type: 'object', properties: { a: { default: 1 }, b: { type: 'string' } } },
      },
      200,
    );
    expect(toRequestTemplate(item, new Set(['p2']))).toMatchObject({
      businessGroupId: 'p2',
      data: { a: 1 },
      description: null,
      reasons: null,
    });
  });

  it('lists a required input without a default as null in the template, for a form to ask for it', () => {
    const item = decodeCatalogItem8(
      {
        id: 'i1',
        name: 'Item',
        projectIds: ['p1'],
        type: { id: 'com.vmw.blueprint' },
        schema: {
          type: 'object',
          required: ['b'],
          properties: { a: { default: 1 }, b: { type: 'string' }, c: { type: 'string' } },
        },
      },
      200,
    );
    expect(toRequestTemplate(item, new Set(['p1']))['data']).toEqual({ a: 1, b: null });
  });

  it('refuses a catalog item without projectIds or type', () => {
    expect(() => decodeCatalogItem8({ id: 'i1', name: 'x' }, 200)).toThrow(
      UpstreamBadResponseError,
    );
  });

  it("reads a bearer's expiry from its JWT exp, else 8 hours", () => {
    const now = Date.parse('2024-01-01T00:00:00Z');
    const exp = now / 1000 + 600;
    const jwt = `e30.${Buffer.from(JSON.stringify({ exp })).toString('base64url')}.sig`;
    expect(tokenExpiry(jwt, now)).toBe(exp * 1000);
    expect(tokenExpiry('opaque-token', now)).toBe(now + defaultTokenLifetimeMs);
  });

  it('reads the code and message of a vRA 8 error body, never its stack trace', () => {
    expect(
      readVra8ErrorBody(
        JSON.stringify({ message: 'Project not found', errorCode: 20002, stackTrace: ['at x'] }),
      ),
    ).toEqual({ code: '20002', message: 'Project not found' });
    expect(readVra8ErrorBody('not json')).toEqual({ code: null, message: null });
  });
});
