import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { UpstreamBadResponseError } from '../../src/errors.ts';
import { decodeExecutionHistory, decodeLogs } from '../../src/upstreams/vro/decode.ts';
import { newestFirst } from '../../src/upstreams/vro/execution-history.ts';
import type { ExecutionHistoryPage, ExecutionRecord } from '../../src/upstreams/vro/wire.ts';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../fixtures/vro/${name}`, import.meta.url), 'utf8'));
const workflowId = '6e04a460-4a45-4e16-9603-db2922c24462';

describe('vRO run history', () => {
  it('reads the captured history: only links with attributes are runs, dates as ISO instants', () => {
    const page = decodeExecutionHistory(fixture('executions.json'), workflowId, 200);
    expect(page.total).toBe(100);
    expect(page.executions).toHaveLength(100);
    expect(page.executions[0]).toEqual({
      id: 'ff8080814a1cb55c014a354875ad15be',
      workflowId,
      name: 'Request Component',
      state: 'failed',
      startDate: '2014-12-10T17:39:08.843Z',
      endDate: '2014-12-10T17:39:13.827Z',
      startedBy: 'svcacct@example.',
      inputParameters: [],
      outputParameters: [],
      exception: null,
      listed: true,
    });
  });

  it('refuses a run in a state vRO does not have', () => {
    const body = {
      relations: {
        total: 1,
        link: [
          {
            rel: 'down',
            attributes: [
              { name: 'id', value: 'e1' },
              { name: 'state', value: 'done' },
            ],
          },
        ],
      },
    };
    expect(() => decodeExecutionHistory(body, workflowId, 200)).toThrow(UpstreamBadResponseError);
  });

  describe('newest first, whether or not the server pages', () => {
    const runs: ExecutionRecord[] = Array.from({ length: 7 }, (_, index) => ({
      id: `e${index}`,
      workflowId,
      name: null,
      state: 'completed',
      startDate: new Date(Date.UTC(2026, 0, 1 + index)).toISOString(),
      endDate: null,
      startedBy: null,
      inputParameters: [],
      outputParameters: [],
      exception: null,
      listed: true,
    }));
    const server = (honors: boolean) => {
      const reads: Array<{ maxResult: number; startIndex: number }> = [];
      const read = (query: {
        maxResult: number;
        startIndex: number;
      }): Promise<ExecutionHistoryPage> => {
        reads.push(query);
        const executions = honors
          ? runs.slice(query.startIndex, query.startIndex + query.maxResult)
          : runs;
        return Promise.resolve({ total: runs.length, executions });
      };
      return { read, reads };
    };
    const ids = (page: ExecutionHistoryPage) => page.executions.map((execution) => execution.id);

    it('cuts the page itself from one read when the server ignores maxResult and startIndex', async () => {
      const { read, reads } = server(false);
      expect(ids(await newestFirst(read, 0, 3))).toEqual(['e6', 'e5', 'e4']);
      expect(ids(await newestFirst(read, 6, 3))).toEqual(['e0']);
      expect(reads).toEqual([
        { maxResult: 1, startIndex: 0 },
        { maxResult: 1, startIndex: 0 },
      ]);
    });

    it('asks a server that pages for exactly the window of the page, oldest-first positions', async () => {
      const { read, reads } = server(true);
      const first = await newestFirst(read, 0, 3);
      expect(ids(first)).toEqual(['e6', 'e5', 'e4']);
      expect(first.total).toBe(7);
      expect(ids(await newestFirst(read, 3, 3))).toEqual(['e3', 'e2', 'e1']);
      expect(ids(await newestFirst(read, 6, 3))).toEqual(['e0']);
      expect(ids(await newestFirst(read, 9, 3))).toEqual([]);
      expect(reads).toEqual([
        { maxResult: 1, startIndex: 0 },
        { maxResult: 3, startIndex: 4 },
        { maxResult: 1, startIndex: 0 },
        { maxResult: 3, startIndex: 1 },
        { maxResult: 1, startIndex: 0 },
        { maxResult: 1, startIndex: 0 },
        { maxResult: 1, startIndex: 0 },
      ]);
    });

    it('orders by start date even when the server lists runs in another order', async () => {
      const shuffled = [runs[3]!, runs[0]!, runs[6]!];
      const page = await newestFirst(
        () => Promise.resolve({ total: 3, executions: shuffled }),
        0,
        10,
      );
      expect(ids(page)).toEqual(['e6', 'e3', 'e0']);
    });
  });
});

describe('vRO run logs', () => {
  it('reads the captured log, newest first, epoch-ms time-stamps as ISO instants', () => {
    const logs = decodeLogs(fixture('execution-logs.json'), 200);
    expect(logs).toHaveLength(4);
    expect(logs[0]).toEqual({
      severity: 'info',
      timestamp: '2014-12-19T21:55:24.333Z',
      user: 'someuser',
      message: "Workflow 'Request Component' has completed",
      detail: "Workflow 'Request Component' has completed",
    });
    expect(logs[2]).toMatchObject({
      message: 'Workflow is paused',
      detail: "Workflow 'Request Component' has paused while waiting on signal",
    });
  });

  it('reads a time-stamp sent as a string, and an entry with only a long description', () => {
    const logs = decodeLogs(
      {
        logs: [
          {
            entry: { severity: 'error', 'time-stamp': '1419026124333', 'long-description': 'Boom' },
          },
        ],
      },
      200,
    );
    expect(logs).toEqual([
      {
        severity: 'error',
        timestamp: '2014-12-19T21:55:24.333Z',
        user: null,
        message: 'Boom',
        detail: 'Boom',
      },
    ]);
  });

  it('reads a run without a log as an empty list, and refuses an entry without a severity', () => {
    expect(decodeLogs({}, 200)).toEqual([]);
    expect(() => decodeLogs({ logs: [{ entry: { 'short-description': 'x' } }] }, 200)).toThrow(
      UpstreamBadResponseError,
    );
    expect(() => decodeLogs({ logs: {} }, 200)).toThrow(UpstreamBadResponseError);
  });
});
