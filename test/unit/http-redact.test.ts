import { describe, expect, it } from 'vitest';
import { redact } from '../../src/http/redact.ts';

const baseUrl = new URL('https://vro.example:8281/vco/api');
const basic = `Basic ${Buffer.from('svc:pa55-word').toString('base64')}`;

describe('redact', () => {
  it('takes out the Authorization value, its credential and a Basic password', () => {
    const credential = basic.slice(6);
    expect(
      redact(`got ${basic}; raw ${credential}; password pa55-word`, {
        authorization: basic,
        baseUrl,
      }),
    ).toBe('got [redacted]; raw [redacted]; password [redacted]');
  });

  it('takes out any Basic or Bearer value, known or not', () => {
    expect(redact('Authorization: Bearer abc.def-ghi and basic Zm9vOmJhcg==', { baseUrl })).toBe(
      'Authorization: Bearer [redacted] and basic [redacted]',
    );
  });

  it("takes out the upstream's origin and host, and the secrets named", () => {
    expect(
      redact('see https://vro.example:8281/vco/api/x or vro.example:8281; hunter22', {
        baseUrl,
        secrets: ['hunter22'],
      }),
    ).toBe('see [redacted]/vco/api/x or [redacted]; [redacted]');
  });

  it('leaves an ordinary message as it is', () => {
    expect(redact("Workflow 'Test01' is older than 9.0.0", { authorization: basic, baseUrl })).toBe(
      "Workflow 'Test01' is older than 9.0.0",
    );
  });
});
