import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { UpstreamBadResponseError } from '../../src/errors.ts';
import {
  decodeExecution,
  decodeWorkflowDetail,
  decodeWorkflowPage,
  executionIdFromLocation,
  parseJsonBody,
} from '../../src/upstreams/vro/decode.ts';
import { thrown } from '../helpers/thrown.ts';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../fixtures/vro/${name}`, import.meta.url), 'utf8'));

const badResponse = (run: () => unknown) => thrown(UpstreamBadResponseError, run);

describe('vRO body decoding', () => {
  it('reads the captured query result, turning string booleans into booleans', () => {
    const page = decodeWorkflowPage(fixture('workflows-query.json'), 200);
    expect(page).toEqual({
      total: 1,
      workflows: [
        {
          id: '6e04a460-4a45-4e16-9603-db2922c24462',
          name: 'Request Component',
          description: null,
          version: '0.0.33',
          href: 'https://vco.example.com:8281/vco/api/workflows/6e04a460-4a45-4e16-9603-db2922c24462/',
          customIcon: false,
          summary: {
            categoryName: 'vCAC',
            categoryHref:
              'https://vco.example.com:8281/vco/api/catalog/System/WorkflowCategory/ff80808148eb04940149d404c1506b3b/',
            type: 'Workflow',
            canExecute: true,
            canEdit: true,
          },
        },
      ],
    });
  });

  it('accepts attribute (singular) as generated docs spell it, and keeps only rel down links', () => {
    const page = decodeWorkflowPage(
      {
        link: [
          { href: 'https://h/vco/api/workflows/', rel: 'up' },
          {
            attribute: [
              { name: 'id', value: 'w1' },
              { name: 'name', value: 'One' },
              { name: 'version', value: '1.0.0' },
              { name: 'canExecute', value: 'false' },
              { name: 'description' },
            ],
            href: 'https://h/vco/api/workflows/w1/',
            rel: 'down',
          },
        ],
        total: 1,
      },
      200,
    );
    expect(page.workflows.map((workflow) => [workflow.id, workflow.summary?.canExecute])).toEqual([
      ['w1', false],
    ]);
    expect(page.workflows[0]?.description).toBeNull();
  });

  it('reads the last entry of a repeated attribute, one without a string value as missing', () => {
    const page = decodeWorkflowPage(
      {
        link: [
          {
            attributes: [
              { name: 'id', value: 'w1' },
              { name: 'name', value: 'One' },
              { name: 'version', value: '1.0.0' },
              { name: 'version', value: '1.0.1' },
              { name: 'canEdit', value: 'TRUE' },
              { name: 'categoryName', value: 'Old' },
              { name: 'categoryName', value: 7 },
              { name: 42, value: 'ignored' },
              'not an entry',
              { name: 'itemHref', value: 'https://h/vco/api/workflows/w1/' },
            ],
            rel: 'down',
          },
        ],
        total: '1',
      },
      200,
    );
    expect(page).toEqual({
      total: 1,
      workflows: [
        {
          id: 'w1',
          name: 'One',
          description: null,
          version: '1.0.1',
          href: 'https://h/vco/api/workflows/w1/',
          customIcon: false,
          summary: {
            categoryName: null,
            categoryHref: null,
            type: null,
            canExecute: false,
            canEdit: true,
          },
        },
      ],
    });
  });

  it('refuses a query result without total or an item without its id', () => {
    expect(badResponse(() => decodeWorkflowPage({ link: [] }, 200)).extensions['code']).toBe(
      'UPSTREAM_BAD_RESPONSE',
    );
    badResponse(() =>
      decodeWorkflowPage(
        { link: [{ attributes: [{ name: 'name', value: 'x' }], rel: 'down' }], total: 1 },
        200,
      ),
    );
  });

  it('reads the captured workflow detail with its hyphenated keys', () => {
    const workflow = decodeWorkflowDetail(fixture('workflow.json'), 200);
    expect(workflow.customIcon).toBe(false);
    expect(workflow.summary).toBeUndefined();
    expect(workflow.parameters?.input).toHaveLength(13);
    expect(workflow.parameters?.input[9]).toEqual({
      name: 'runlist',
      type: 'Array/string',
      description: 'Chef Runlist for first run.  Leave empty for no Chef',
    });
    expect(workflow.parameters?.output.map((parameter) => parameter.name)).toEqual([
      'result',
      'requestNumber',
      'requestCompletionDetails',
    ]);
  });

  it('reads the captured execution: state, epoch-ms dates as ISO, parameters', () => {
    const execution = decodeExecution(fixture('execution.json'), 'wf-1', 200);
    expect(execution).toMatchObject({
      id: 'ff8080814a1cb55c014a6481a9927a78',
      workflowId: 'wf-1',
      name: 'Request Component',
      state: 'completed',
      startDate: '2014-12-19T21:43:46.833Z',
      endDate: '2014-12-19T21:55:24.320Z',
      startedBy: 'someuser@EXAMPLE.COM',
      exception: null,
    });
    expect(execution.inputParameters).toHaveLength(13);
    expect(execution.outputParameters[1]).toEqual({
      name: 'requestNumber',
      type: 'number',
      value: { number: { value: 326 } },
    });
  });

  it('refuses an execution in a state vRO does not have', () => {
    badResponse(() => decodeExecution({ id: 'e', state: 'done' }, 'w', 200));
  });

  it('refuses a body that is not JSON', () => {
    expect(badResponse(() => parseJsonBody('{"link":[', 200)).message).not.toContain('link');
  });

  it('takes the execution id from the last segment of Location', () => {
    expect(
      executionIdFromLocation(
        'https://vco.example.com:8281/vco/api/workflows/6e04a460-4a45-4e16-9603-db2922c24462/executions/ff8080814a1cb55c014a6481a9927a78/',
        202,
      ),
    ).toBe('ff8080814a1cb55c014a6481a9927a78');
    expect(executionIdFromLocation('/vco/api/workflows/w/executions/abc', 202)).toBe('abc');
  });

  it.each([
    undefined,
    '',
    'https://h/vco/api/workflows/w/',
    'https://h/vco/api/workflows/w/executions/',
  ])('refuses the Location %j', (location) => {
    expect(badResponse(() => executionIdFromLocation(location, 202)).upstream.status).toBe(202);
  });
});
