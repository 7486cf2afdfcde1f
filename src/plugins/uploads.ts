import type { IncomingMessage } from 'node:http';
import { parse, type GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { requestAuth } from '../auth/request-auth.ts';
import { mutationRefused } from '../auth/root-guard.ts';
import {
  boundaryOf,
  MultipartSyntaxError,
  readMultipart,
  type PartSink,
} from '../http/multipart-reader.ts';
import { SpooledFile, UnreadFile } from '../http/spooled-file.ts';
import { errorResponse } from './error-response.ts';

class MultipartRequestError extends Error {
  override name = 'MultipartRequestError';
}

const forbiddenKeys = new Set(['__proto__', 'constructor', 'prototype']);

type Operations = Record<string, unknown> | Array<Record<string, unknown>>;

function parsedOperations(text: string | undefined): Operations {
  if (text === undefined) throw new MultipartRequestError('The part "operations" is missing.');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new MultipartRequestError('The part "operations" is not JSON.');
  }
  if (typeof value !== 'object' || value === null) {
    throw new MultipartRequestError('The part "operations" must be a JSON object or array.');
  }
  return value as Operations;
}

/** The map's paths, each checked to name a null placeholder in `operations`. */
function parsedMap(text: string | undefined, operations: Operations): Map<string, string[][]> {
  const map = new Map<string, string[][]>();
  if (text === undefined) return map;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new MultipartRequestError('The part "map" is not JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new MultipartRequestError('The part "map" must be a JSON object of arrays of paths.');
  }
  for (const [name, paths] of Object.entries(value as Record<string, unknown>)) {
    if (!Array.isArray(paths) || paths.length === 0) {
      throw new MultipartRequestError(
        `The map entry "${name.slice(0, 64)}" must be an array of paths.`,
      );
    }
    map.set(
      name,
      paths.map((path: unknown) => {
        if (typeof path !== 'string')
          throw new MultipartRequestError('A map path must be a string.');
        const keys = path.split('.');
        let at: unknown = operations;
        for (const [index, key] of keys.entries()) {
          if (
            forbiddenKeys.has(key) ||
            typeof at !== 'object' ||
            at === null ||
            !Object.hasOwn(at, key)
          ) {
            throw new MultipartRequestError(
              `The map path "${path.slice(0, 200)}" names nothing in operations.`,
            );
          }
          const next = (at as Record<string, unknown>)[key];
          if (index === keys.length - 1 && next !== null) {
            throw new MultipartRequestError(
              `The map path "${path.slice(0, 200)}" must name a null in operations.`,
            );
          }
          at = next;
        }
        return keys;
      }),
    );
  }
  return map;
}

function place(operations: Operations, keys: readonly string[], file: unknown): void {
  let at = operations as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) at = at[key] as Record<string, unknown>;
  at[keys.at(-1) ?? ''] = file;
}

/** A field part's text, at most `max` bytes. */
function textSink(max: number, done: (text: string) => void): PartSink {
  const parts: Buffer[] = [];
  let size = 0;
  return {
    write: (bytes) => {
      size += bytes.length;
      if (size > max)
        throw new MultipartRequestError('A multipart field is larger than MAX_REQUEST_BYTES.');
      parts.push(Buffer.from(bytes));
      return Promise.resolve();
    },
    end: () => {
      done(Buffer.concat(parts).toString('utf8'));
      return Promise.resolve();
    },
  };
}

const discard: PartSink = { write: () => Promise.resolve(), end: () => Promise.resolve() };

/** True when the caller may not run an operation of `operations`, or one of them does not parse. */
function refusedBeforeReading(
  schema: GraphQLSchema | undefined,
  request: Request,
  operations: Operations,
): boolean {
  const caller = requestAuth(request)?.caller;
  if (schema === undefined || caller === undefined) return false;
  return (Array.isArray(operations) ? operations : [operations]).some((params) => {
    const query = params['query'];
    if (typeof query !== 'string') return false;
    const name = params['operationName'];
    try {
      return mutationRefused(
        schema,
        parse(query),
        typeof name === 'string' ? name : undefined,
        caller,
      );
    } catch {
      return true; // yoga answers why it does not parse; its files are of no use
    }
  });
}

interface Received {
  files: SpooledFile[];
  /** The body was not read to its end: the connection cannot carry another request. */
  unread: boolean;
}

/**
 * GraphQL multipart requests (uploads), read as they arrive instead of
 * gathered in memory: the parts "operations" and "map" come first (as the
 * spec orders them), and when the caller may not run the mutation they name
 * (the root guard will refuse it) no file is read at all: the files are
 * stood for by empty ones and the connection closed after the answer.
 * Otherwise each file is received into a SpooledFile (memory up to 1 MiB,
 * a temporary file past it), deleted once the answer is made. A map that is
 * not an object of paths to nulls in operations is answered 400.
 */
export function uploads(maxFieldBytes: number): Plugin {
  let schema: GraphQLSchema | undefined;
  const received = new WeakMap<Request, Received>();

  const read = async (
    request: Request,
    source: AsyncIterable<Uint8Array>,
  ): Promise<Response | Record<string, unknown>> => {
    const state: Received = { files: [], unread: false };
    received.set(request, state);
    const boundary = boundaryOf(request.headers.get('content-type') ?? '');
    if (boundary === undefined)
      throw new MultipartRequestError('The content type names no boundary.');
    const fields = new Map<string, string>();
    let operations: Operations | undefined;
    let map = new Map<string, string[][]>();
    const decided = { refused: false };
    const bytes = new Map<string, SpooledFile>();
    const settle = (): void => {
      if (operations !== undefined) return;
      operations = parsedOperations(fields.get('operations'));
      map = parsedMap(fields.get('map'), operations);
      decided.refused = refusedBeforeReading(schema, request, operations);
    };
    const outcome = await readMultipart(source, boundary, (head) => {
      if (head.filename === undefined) {
        if (operations !== undefined) return Promise.resolve(discard);
        return Promise.resolve(textSink(maxFieldBytes, (text) => fields.set(head.name, text)));
      }
      settle();
      if (decided.refused) return Promise.resolve('stop' as const);
      if (!map.has(head.name) || bytes.has(head.name)) return Promise.resolve(discard);
      const file = new SpooledFile(head.filename, head.contentType ?? '');
      state.files.push(file);
      bytes.set(head.name, file);
      return Promise.resolve(file);
    });
    settle();
    state.unread = outcome === 'stopped';
    const all = operations as Operations;
    for (const [name, paths] of map) {
      const file = decided.refused ? new UnreadFile(name) : bytes.get(name);
      if (file === undefined)
        throw new MultipartRequestError(
          `The map names a file "${name.slice(0, 64)}" that was not sent.`,
        );
      for (const keys of paths) place(all, keys, file);
    }
    return all as Record<string, unknown>;
  };

  const dispose = (request: Request): void => {
    const state = received.get(request);
    for (const file of state?.files ?? []) void file.dispose();
  };

  return {
    onSchemaChange(payload) {
      schema = payload.schema as GraphQLSchema;
    },
    onRequestParse({ request, serverContext, setRequestParser }) {
      if (request.method !== 'POST') return;
      if (
        !(request.headers.get('content-type') ?? '').toLowerCase().startsWith('multipart/form-data')
      )
        return;
      setRequestParser(async (incoming) => {
        const { req } = serverContext as { req?: IncomingMessage };
        // Not closed when the reading stops early: the answer still goes out on its socket.
        const source: AsyncIterable<Uint8Array> =
          req !== undefined && !req.readableDidRead
            ? (req.iterator({ destroyOnReturn: false }) as AsyncIterable<Uint8Array>)
            : incoming.body === null
              ? (async function* () {})()
              : incoming.body.values({ preventCancel: true });
        try {
          return (await read(incoming, source)) as never;
        } catch (error) {
          dispose(incoming);
          if (error instanceof MultipartRequestError || error instanceof MultipartSyntaxError) {
            return errorResponse(
              400,
              'BAD_USER_INPUT',
              `Malformed multipart request: ${error.message}`,
              {
                connection: 'close',
              },
            );
          }
          throw error;
        }
      });
    },
    onResponse({ request, response }) {
      if (received.get(request)?.unread === true) response.headers.set('connection', 'close');
      dispose(request);
    },
  };
}
