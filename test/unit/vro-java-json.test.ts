import { describe, expect, it } from 'vitest';
import { JavaDouble, javaDoubleText, toJavaJson } from '../../simulators/vro/java-json.ts';

describe('the vRO simulator JSON writer', () => {
  it('writes doubles as Java does', () => {
    expect(javaDoubleText(326)).toBe('326.0');
    expect(javaDoubleText(2.5)).toBe('2.5');
    expect(javaDoubleText(0)).toBe('0.0');
    expect(javaDoubleText(-4)).toBe('-4.0');
    expect(javaDoubleText(1e7)).toBe('1.0E7');
    expect(javaDoubleText(12345678)).toBe('1.2345678E7');
    expect(javaDoubleText(0.0001)).toBe('1.0E-4');
  });

  it('writes only JavaDouble values with .0, other numbers as they are', () => {
    const text = toJavaJson({
      'start-date': 1419025426833,
      value: { number: { value: new JavaDouble(326) } },
    });
    expect(text).toBe('{"start-date":1419025426833,"value":{"number":{"value":326.0}}}');
    expect(JSON.parse(text)).toEqual({
      'start-date': 1419025426833,
      value: { number: { value: 326 } },
    });
  });
});
