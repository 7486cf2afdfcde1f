/**
 * JSON as vRO (Java) writes it: a `number` parameter is a double, so an
 * integral value keeps its `.0` (`326.0`) and large or tiny ones use Java's
 * `1.0E7` notation (reference/vro/execution.json).
 */
export class JavaDouble {
  readonly value: number;
  constructor(value: number) {
    this.value = value;
  }
}

export function toJavaJson(value: unknown): string {
  if (value instanceof JavaDouble) return javaDoubleText(value.value);
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(toJavaJson).join(',')}]`;
  if (typeof value === 'object') {
    const members = Object.entries(value as Record<string, unknown>)
      .filter(([, member]) => member !== undefined)
      .map(([key, member]) => `${JSON.stringify(key)}:${toJavaJson(member)}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Java's Double.toString. */
export function javaDoubleText(value: number): string {
  if (!Number.isFinite(value)) return 'null';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const magnitude = Math.abs(value);
  if (magnitude >= 1e-3 && magnitude < 1e7) {
    const text = String(value);
    return text.includes('.') ? text : `${text}.0`;
  }
  const [mantissa = '0', exponent = '0'] = value.toExponential().split('e');
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${exponent.replace('+', '')}`;
}
