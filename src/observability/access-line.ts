/** What one request's log line says (docs/operations.md names each field). */
export interface AccessRecord {
  requestId: string;
  clientAddress: string | null;
  /** As the client sent it: cut by `bounded` here. */
  operationName: string | null;
  operationType: string | null;
  status: number;
  durationMs: number;
  upstreamCalls: number;
  /** The name as the credential gives it: cut by `bounded` here. */
  caller?: { name: string; via: string } | undefined;
  errorCodes?: readonly string[] | undefined;
  events?: number | undefined;
  ended?: string | undefined;
}

/** Client-supplied text in a log line is cut to this many characters. */
const maxLoggedChars = 200;

/** A client-supplied string as logged: at most 200 characters, and saying that it was cut. */
export function bounded(text: string): string {
  return text.length <= maxLoggedChars
    ? text
    : `${text.slice(0, maxLoggedChars)}…(${text.length} chars)`;
}

const lineSeparators = /[\u2028\u2029]/g;

/**
 * A JSON string: JSON.stringify escapes quotes, backslashes, control
 * characters and lone surrogates; U+2028 and U+2029 are escaped as well, for
 * readers that take them for line ends.
 */
function quoted(text: string): string {
  const json = JSON.stringify(text);
  return json.includes('\u2028') || json.includes('\u2029')
    ? json.replace(lineSeparators, (separator) => (separator === '\u2028' ? '\\u2028' : '\\u2029'))
    : json;
}

function quotedOrNull(text: string | null): string {
  return text === null ? 'null' : quoted(text);
}

/** A finite number as JSON (pino writes null for the others). */
function numeric(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}

/**
 * The fields of a request's log line as JSON (without the braces), in the
 * order the line has always had them. Built by hand, not by a generic
 * serializer: the keys are fixed and none can hold a credential, so only the
 * values are encoded, and only the strings a client chose go through
 * JSON.stringify. The known-secrets scan still runs on the whole line (see
 * `fixedShapeWriter` in logger.ts).
 */
export function accessLineFields(record: AccessRecord): string {
  let fields =
    `"requestId":${quoted(record.requestId)}` +
    `,"clientAddress":${quotedOrNull(record.clientAddress)}` +
    `,"operationName":${quotedOrNull(record.operationName === null ? null : bounded(record.operationName))}` +
    `,"operationType":${quotedOrNull(record.operationType)}` +
    `,"status":${numeric(record.status)}` +
    `,"durationMs":${numeric(record.durationMs)}` +
    `,"upstreamCalls":${numeric(record.upstreamCalls)}`;
  if (record.caller !== undefined) {
    fields += `,"caller":{"name":${quoted(bounded(record.caller.name))},"via":${quoted(record.caller.via)}}`;
  }
  if (record.errorCodes !== undefined) {
    fields += `,"errorCodes":[${record.errorCodes.map(quoted).join(',')}]`;
  }
  if (record.events !== undefined) fields += `,"events":${numeric(record.events)}`;
  if (record.ended !== undefined) fields += `,"ended":${quoted(record.ended)}`;
  return fields;
}
