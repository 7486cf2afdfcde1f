/** What the vRA 7 simulator's catalog and consumer routes share: reading a JSON body, and answering a paged list. */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { sendJson, type RecordedRequest } from '../../sim-server.ts';
import { compileFilter, FilterSyntaxError } from './odata.ts';
import { invalidArgument } from './vra-errors.ts';

const maxLimit = 5000;

/** Links name the address the client used, as vRA's do. */
export function originOf(request: RecordedRequest): string {
  return `http://${request.headers.host ?? '127.0.0.1'}`;
}

export function sendsJson(headers: IncomingHttpHeaders): boolean {
  return (headers['content-type'] ?? '').toLowerCase().startsWith('application/json');
}

export function parseBody(request: RecordedRequest): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(request.body.toString('utf8')) as unknown };
  } catch {
    return { ok: false };
  }
}

/** A paged vRA list answer (`page`, `limit`, `$filter`, `$orderby`), strict about its parameters. */
export function sendList(
  request: RecordedRequest,
  response: ServerResponse,
  items: readonly unknown[],
  fields: readonly string[],
): void {
  const pageText = request.query.get('page') ?? '1';
  const limitText = request.query.get('limit') ?? '20';
  const page = /^\d{1,9}$/.test(pageText) ? Number(pageText) : Number.NaN;
  const limit = /^\d{1,9}$/.test(limitText) ? Number(limitText) : Number.NaN;
  if (!(page >= 1)) return sendJson(response, 400, invalidArgument(`Invalid page: ${pageText}.`));
  if (!(limit >= 1 && limit <= maxLimit)) {
    return sendJson(
      response,
      400,
      invalidArgument(`Invalid limit: ${limitText} (1 to ${maxLimit}).`),
    );
  }
  let selected = [...items];
  const filter = request.query.get('$filter');
  if (filter !== null) {
    try {
      selected = selected.filter(compileFilter(filter, fields));
    } catch (error) {
      if (!(error instanceof FilterSyntaxError)) throw error;
      return sendJson(response, 400, invalidArgument(`Invalid $filter: ${error.message}.`));
    }
  }
  const orderBy = request.query.get('$orderby');
  if (orderBy !== null) {
    const match = /^\s*(\w+)(?:\s+(asc|desc))?\s*$/i.exec(orderBy);
    const field = match?.[1];
    if (field === undefined || !fields.includes(field)) {
      return sendJson(response, 400, invalidArgument(`Invalid $orderby: ${orderBy}.`));
    }
    const sign = match?.[2]?.toLowerCase() === 'desc' ? -1 : 1;
    const key = (item: unknown): string => {
      const value = (item as Record<string, unknown>)[field];
      return typeof value === 'string' ? value : '';
    };
    selected.sort((a, b) => sign * key(a).localeCompare(key(b)));
  }
  const total = selected.length;
  const totalPages = Math.ceil(total / limit);
  const offset = (page - 1) * limit;
  const base = `${originOf(request)}${request.rawPath}`;
  const link = (rel: string, to: number) => ({
    '@type': 'link',
    rel,
    href: `${base}?page=${to}&limit=${limit}`,
  });
  sendJson(response, 200, {
    links: [
      ...(page > 1 ? [link('prev', page - 1)] : []),
      ...(page < totalPages ? [link('next', page + 1)] : []),
    ],
    content: selected.slice(offset, offset + limit),
    metadata: { size: limit, totalElements: total, totalPages, number: page, offset },
  });
}
