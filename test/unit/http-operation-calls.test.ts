import { describe, expect, it } from 'vitest';
import { OperationCalls } from '../../src/http/operation-calls.ts';
import type { UpstreamRequest, UpstreamResponse } from '../../src/http/upstream-http.ts';

const get = (path: string, more: Partial<UpstreamRequest> = {}): UpstreamRequest => ({
  method: 'GET',
  path,
  route: path,
  ...more,
});

/** A fake upstream that counts what it is sent and answers with the count so far. */
function counter() {
  const sent: string[] = [];
  return {
    sent,
    send: (request: UpstreamRequest) => (): Promise<UpstreamResponse> => {
      sent.push(`${request.method} ${request.path}`);
      return Promise.resolve({ status: 200, headers: {}, body: String(sent.length) });
    },
  };
}

describe('OperationCalls', () => {
  it('makes identical reads once, in flight or done', async () => {
    const calls = new OperationCalls();
    const upstream = counter();
    const read = get('/workflows', { query: { maxResult: 5 }, authorization: 'Basic a' });
    const [a, b] = await Promise.all([
      calls.send('vro', read, upstream.send(read)),
      calls.send('vro', { ...read }, upstream.send(read)),
    ]);
    const c = await calls.send('vro', read, upstream.send(read));
    expect(upstream.sent).toEqual(['GET /workflows']);
    expect([a.body, b.body, c.body]).toEqual(['1', '1', '1']);
  });

  it('tells reads apart by upstream, path, query, credential and headers', async () => {
    const calls = new OperationCalls();
    const upstream = counter();
    const reads = [
      get('/a'),
      get('/b'),
      get('/a', { query: { page: 2 } }),
      get('/a', { authorization: 'Basic other' }),
      get('/a', { headers: { accept: 'application/xml' } }),
    ];
    for (const read of reads) await calls.send('vro', read, upstream.send(read));
    await calls.send('nsx', get('/a'), upstream.send(get('/a')));
    expect(upstream.sent).toHaveLength(6);
  });

  it('tells reads apart by headers even when one headers object is changed between them', async () => {
    const calls = new OperationCalls();
    const upstream = counter();
    const headers: Record<string, string> = { accept: 'application/json' };
    const frozen = Object.freeze({ accept: 'application/json' });
    const first = get('/a', { headers });
    await calls.send('vro', first, upstream.send(first));
    headers['accept'] = 'application/xml';
    await calls.send('vro', first, upstream.send(first));
    await calls.send('vro', get('/a', { headers: frozen }), upstream.send(first));
    await calls.send('vro', get('/a', { headers: frozen }), upstream.send(first));
    expect(upstream.sent).toHaveLength(2);
  });

  it('makes a read again after a write to the same upstream, not after a write to another', async () => {
    const calls = new OperationCalls();
    const upstream = counter();
    const read = get('/ipset/1');
    const write: UpstreamRequest = { method: 'PUT', path: '/ipset/1', route: '/ipset/{id}' };
    await calls.send('nsx', read, upstream.send(read));
    await calls.send('vro', write, upstream.send(write));
    await calls.send('nsx', read, upstream.send(read));
    await calls.send('nsx', write, upstream.send(write));
    await calls.send('nsx', write, upstream.send(write));
    const after = await calls.send('nsx', read, upstream.send(read));
    expect(upstream.sent).toEqual([
      'GET /ipset/1',
      'PUT /ipset/1',
      'PUT /ipset/1',
      'PUT /ipset/1',
      'GET /ipset/1',
    ]);
    expect(after.body).toBe('5');
  });

  it('makes a read again after it failed, and shares the failure with reads made meanwhile', async () => {
    const calls = new OperationCalls();
    const read = get('/flaky');
    let attempts = 0;
    const failing = (): Promise<UpstreamResponse> => {
      attempts += 1;
      return Promise.reject(new Error('down'));
    };
    const both = Promise.allSettled([
      calls.send('vra', read, failing),
      calls.send('vra', read, failing),
    ]);
    expect((await both).map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(attempts).toBe(1);
    await expect(calls.send('vra', read, failing)).rejects.toThrow('down');
    expect(attempts).toBe(2);
  });

  it('makes at most `limit` calls: one more is not sent and fails with the estimate refusal’s code', async () => {
    const calls = new OperationCalls(3);
    const upstream = counter();
    const write = { ...get('/ipset/1'), method: 'PUT' as const };
    await calls.send('nsx', get('/a'), upstream.send(get('/a')));
    await calls.send('nsx', get('/a'), upstream.send(get('/a'))); // answered by the first: free
    await calls.send('nsx', write, upstream.send(write));
    calls.claim(); // an exclusive read
    const refused = calls.send('vro', get('/b'), upstream.send(get('/b')));
    await expect(refused).rejects.toMatchObject({
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
    await expect(refused).rejects.toThrow(/3 upstream calls .*MAX_UPSTREAM_CALLS_PER_OPERATION/);
    await expect(calls.send('nsx', write, upstream.send(write))).rejects.toThrow(/3 upstream/);
    expect(() => calls.claim()).toThrow(/3 upstream/);
    expect(upstream.sent).toEqual(['GET /a', 'PUT /ipset/1']);
  });

  it('counts afresh after forget (each event of a subscription)', async () => {
    const calls = new OperationCalls(1);
    const upstream = counter();
    await calls.send('vro', get('/a'), upstream.send(get('/a')));
    await expect(calls.send('vro', get('/b'), upstream.send(get('/b')))).rejects.toThrow();
    calls.forget();
    await calls.send('vro', get('/b'), upstream.send(get('/b')));
    expect(upstream.sent).toEqual(['GET /a', 'GET /b']);
  });
});
