import { describe, expect, it } from 'vitest';
import { readVroErrorBody } from '../../src/upstreams/vro/error-body.ts';

describe('vRO error bodies', () => {
  it('takes the message of a JSON body, and no code', () => {
    expect(readVroErrorBody('{"status":"404","message":"Workflow not found"}')).toEqual({
      code: null,
      message: 'Workflow not found',
    });
  });

  it('takes at most the first 200 characters of any other text body', () => {
    const text = `Internal error: ${'x'.repeat(1000)}`;
    const { message } = readVroErrorBody(text);
    expect(message?.startsWith('Internal error: xxx')).toBe(true);
    expect(message?.length).toBeLessThanOrEqual(201);
  });

  it('treats JSON without a message as text, and an empty body as no message', () => {
    expect(readVroErrorBody('{"error":"x"}').message).toBe('{"error":"x"}');
    expect(readVroErrorBody('  ')).toEqual({ code: null, message: null });
  });

  it('clips a long JSON message too', () => {
    const { message } = readVroErrorBody(JSON.stringify({ message: 'y'.repeat(500) }));
    expect(message?.length).toBeLessThanOrEqual(201);
  });
});

describe('readVroErrorBody on markup', () => {
  it('takes only the title of an HTML page, never its markup', () => {
    const page =
      '<html><head><title>Error 401 Unauthorized</title></head><body><pre>…</pre></body></html>';
    expect(readVroErrorBody(page)).toEqual({ code: null, message: 'Error 401 Unauthorized' });
  });

  it('takes no message from markup without a title', () => {
    expect(readVroErrorBody('<error><x>secret-ish</x></error>')).toEqual({
      code: null,
      message: null,
    });
  });
});
