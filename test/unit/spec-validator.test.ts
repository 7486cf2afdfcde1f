import { describe, expect, it } from 'vitest';
import {
  SpecValidator,
  SpecViolation,
  matchPathTemplate,
  type SwaggerDocument,
} from '../../simulators/spec-validator.ts';

const document: SwaggerDocument = {
  swagger: '2.0',
  paths: {
    '/things': {
      post: {
        parameters: [
          { in: 'body', name: 'body', required: true, schema: { $ref: '#/definitions/Thing' } },
        ],
        responses: {
          '201': { schema: { $ref: '#/definitions/Thing' } },
          '400': { description: 'bad' },
        },
      },
      get: {
        responses: { '200': { schema: { type: 'array', items: { $ref: '#/definitions/Thing' } } } },
      },
    },
    '/things/{id}': { get: { responses: { '200': { schema: { $ref: '#/definitions/Thing' } } } } },
  },
  definitions: {
    Thing: {
      type: 'object',
      required: ['id', 'name', 'kind', 'createdAt'],
      discriminator: 'kind',
      properties: {
        id: { type: 'string', format: 'uuid', example: 'x' },
        name: { type: 'string', 'x-vendor': true },
        kind: { type: 'string', enum: ['A', 'B'] },
        createdAt: { type: 'string', format: 'date-time', readOnly: true },
        size: { type: 'integer', format: 'int32' },
        parts: { type: 'array', items: { $ref: '#/definitions/Part' } },
      },
    },
    Part: { type: 'object', properties: { label: { type: 'string' } } },
  },
};

const thing = {
  id: '0b6f1c0e-6c4f-4d8e-9b5a-2f1a2b3c4d5e',
  name: 'one',
  kind: 'A',
  createdAt: '2024-01-02T03:04:05Z',
};

describe('SpecValidator', () => {
  it('accepts an answer that matches its definition, references followed', () => {
    const validator = new SpecValidator(document);
    expect(
      validator.validateResponse('GET', '/things/{id}', 200, { ...thing, parts: [{ label: 'p' }] }),
    ).toEqual({ ok: true, errors: [] });
    expect(validator.validateResponse('get', '/things', 200, [thing]).ok).toBe(true);
  });

  it('names each problem of a refused body readably', () => {
    const validator = new SpecValidator(document);
    const result = validator.validateDefinition('Thing', {
      id: 'nope',
      kind: 'C',
      size: 1.5,
      parts: [{ label: 3 }],
    });
    expect(result.ok).toBe(false);
    expect(result.errors).toEqual(
      expect.arrayContaining([
        '(body) lacks required property "name"',
        '(body) lacks required property "createdAt"',
        '/id must match format "uuid"',
        '/kind must be one of ["A","B"]',
        '/size must be integer',
        '/parts/0/label must be string',
      ]),
    );
  });

  it('requires a readOnly property in answers only, and a server-assigned one when told', () => {
    const validator = new SpecValidator(document, { requestOptional: { Thing: ['id'] } });
    expect(validator.validateRequestBody('POST', '/things', { name: 'n', kind: 'B' })).toEqual({
      ok: true,
      errors: [],
    });
    expect(validator.validateRequestBody('POST', '/things', undefined).errors).toEqual([
      '(body) is required',
    ]);
    expect(validator.validateResponse('POST', '/things', 201, { name: 'n', kind: 'B' }).ok).toBe(
      false,
    );
  });

  it('refuses unknown answer properties when answers are closed, and an unlisted status', () => {
    const validator = new SpecValidator(document, { closedAnswers: true });
    expect(
      validator.validateResponse('GET', '/things/{id}', 200, { ...thing, extra: 1 }).errors,
    ).toEqual(['(body) has unknown property "extra"']);
    expect(validator.validateRequestBody('POST', '/things', { ...thing, extra: 1 }).ok).toBe(true);
    expect(validator.validateResponse('GET', '/things/{id}', 404, {}).ok).toBe(false);
    expect(() => validator.assertResponse('GET', '/things/{id}', 200, {})).toThrow(SpecViolation);
  });

  it('matches a concrete path to its template, literal segments first', () => {
    const templates = ['/things', '/things/{id}', '/things/new'];
    expect(matchPathTemplate(templates, '/things/42')).toBe('/things/{id}');
    expect(matchPathTemplate(templates, '/things/new')).toBe('/things/new');
    expect(matchPathTemplate(templates, '/other')).toBeUndefined();
  });
});
