import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { UpstreamBadResponseError } from '../../src/errors.ts';
import { decodePresentation } from '../../src/upstreams/vro/presentation.ts';

const captured: unknown = JSON.parse(
  readFileSync(new URL('../fixtures/vro/presentation.json', import.meta.url), 'utf8'),
);

const input = (name: string, type = 'string') => ({ name, type });

describe('vRO presentation as a form', () => {
  it('reads the captured presentation: every input once, in presentation order, with labels and requirements', () => {
    const form = decodePresentation(captured, 200);
    expect(form.fields.map((field) => field.name)).toEqual([
      'businessUnit',
      'environment',
      'component',
      'onBehalfOf',
      'machineCount',
      'image',
      'coreCount',
      'ramMB',
      'runlist',
      'reservation',
      'location',
      'attributesJS',
      'nodename',
    ]);
    expect(form.fields[0]).toEqual({
      name: 'businessUnit',
      type: 'string',
      label: 'businessUnit',
      description: 'businessUnit',
      required: true,
      hidden: false,
      step: null,
      group: null,
      choices: ['an', 'aw', 'soi'],
      defaultValue: null,
    });
    expect(form.fields.find((field) => field.name === 'onBehalfOf')).toMatchObject({
      label: 'On Behalf of User: (user@domain format)',
      required: false,
      choices: null,
    });
    expect(form.fields.find((field) => field.name === 'runlist')?.type).toBe('Array/string');
    // a drop-down next to another decorator (refresh-on-change) is still found
    expect(form.fields.find((field) => field.name === 'coreCount')?.choices).toEqual([
      '1',
      '2',
      '4',
      '8',
    ]);
  });

  it('answers no choices for a drop-down whose only element is null (a list computed when the form opens)', () => {
    const form = decodePresentation(captured, 200);
    expect(form.fields.find((field) => field.name === 'ramMB')).toMatchObject({
      label: 'ramSizeMB',
      required: true,
      choices: null,
    });
  });

  it('takes step and group titles, hides the fields of a hidden group, and unwraps predefined lists and defaults', () => {
    const form = decodePresentation(
      {
        'input-parameters': [input('cpu', 'number'), input('env'), input('secret', 'SecureString')],
        steps: [
          {
            step: {
              title: 'Machine',
              elements: [
                {
                  '@type': 'group',
                  title: 'Size',
                  fields: [
                    {
                      '@type': 'field',
                      id: 'cpu',
                      type: 'number',
                      constraints: [
                        {
                          '@type': 'predefined-list',
                          array: {
                            elements: [{ number: { value: 1 } }, { number: { value: '2.0' } }],
                          },
                        },
                      ],
                      decorators: [{ '@type': 'default-value', number: { value: 2 } }],
                    },
                  ],
                },
                {
                  '@type': 'group',
                  hidden: true,
                  fields: [{ '@type': 'field', id: 'env', type: 'string' }],
                },
              ],
            },
          },
        ],
      },
      200,
    );
    expect(form.fields).toEqual([
      {
        name: 'cpu',
        type: 'number',
        label: null,
        description: null,
        required: false,
        hidden: false,
        step: 'Machine',
        group: 'Size',
        choices: [1, 2],
        defaultValue: 2,
      },
      expect.objectContaining({ name: 'env', step: 'Machine', group: null, hidden: true }),
      // an input the presentation leaves out still comes, after the others
      expect.objectContaining({ name: 'secret', type: 'SecureString', step: null, hidden: false }),
    ]);
  });

  it('lists a field twice only once, and leaves out fields that are not inputs', () => {
    const form = decodePresentation(
      {
        'input-parameters': [input('a')],
        steps: [
          {
            step: {
              elements: [
                { '@type': 'field', id: 'a', type: 'string', 'display-name': 'First' },
                { '@type': 'field', id: 'a', type: 'string', 'display-name': 'Again' },
                { '@type': 'field', id: 'attribute', type: 'string' },
              ],
            },
          },
        ],
      },
      200,
    );
    expect(form.fields).toEqual([expect.objectContaining({ name: 'a', label: 'First' })]);
  });

  it.each([
    ['a body that is not an object', []],
    ['steps that are not a list', { steps: {} }],
    [
      'a field without a type',
      { steps: [{ step: { elements: [{ '@type': 'field', id: 'x' }] } }] },
    ],
    ['inputs without a type', { 'input-parameters': [{ name: 'x' }] }],
  ])('refuses %s as a bad response', (_what, body) => {
    expect(() => decodePresentation(body, 200)).toThrow(UpstreamBadResponseError);
  });
});
