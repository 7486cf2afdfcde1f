/**
 * The NSX-T Policy API's JSON as the gateway reads it (NSX-T 3.x / NSX 4.x,
 * `/policy/api/v1`; model names as in the Policy API's specification, e.g.
 * the OpenAPI-generated `phspies/nsxt30_policy_api` docs: Group,
 * IPAddressExpression, Service, L4PortSetServiceEntry, SecurityPolicy, Rule,
 * LBVirtualServer, LBService, Tier1, ApiError). Every object keeps what it was
 * sent as (`raw`): a write is the object read with the gateway's fields
 * replaced, so that nothing the gateway does not model is lost.
 */
import { badResponse } from '../fields.ts';
import type { PolicyFacts } from './policy-facts.ts';

export type Json = Record<string, unknown>;

/** What every Policy object carries (PolicyConfigResource). */
export interface PolicyObject {
  id: string;
  displayName: string | null;
  description: string | null;
  /** `_revision`: sent back on every change; a stale one is answered 412. */
  revision: number | null;
  /** What only NSX-T tells of the object: the records' `policy`. */
  facts: PolicyFacts;
  raw: Json;
}

export function isJsonObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function parseJsonBody(body: string, status: number): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    throw badResponse('a body that is not JSON', status);
  }
}

export function objectOf(value: unknown, what: string): Json {
  if (!isJsonObject(value)) throw badResponse(`${what} is not a JSON object`);
  return value;
}

export function optionalString(object: Json, key: string): string | null {
  const value = object[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw badResponse(`${key} is not a string`);
  return value;
}

export function requiredString(object: Json, key: string): string {
  const value = optionalString(object, key);
  if (value === null || value.trim() === '') throw badResponse(`an object without ${key}`);
  return value;
}

export function optionalNumber(object: Json, key: string): number | null {
  const value = object[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw badResponse(`${key} is not a whole number`);
  }
  return value;
}

export function optionalBoolean(object: Json, key: string): boolean | null {
  const value = object[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'boolean') throw badResponse(`${key} is neither true nor false`);
  return value;
}

export function stringList(object: Json, key: string): string[] {
  const value = object[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw badResponse(`${key} is not a list of strings`);
  }
  return value;
}

export function objectList(object: Json, key: string): Json[] {
  const value = object[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw badResponse(`${key} is not a list`);
  return value.map((item, index) => objectOf(item, `${key}[${index}]`));
}

export function readPolicyObject(value: unknown, what: string): PolicyObject {
  const raw = objectOf(value, what);
  return {
    id: requiredString(raw, 'id'),
    displayName: optionalString(raw, 'display_name'),
    description: optionalString(raw, 'description'),
    revision: optionalNumber(raw, '_revision'),
    facts: { path: optionalString(raw, 'path') },
    raw,
  };
}

/** A list answer (`*ListResult`): `results` and, while more pages follow, `cursor`. */
export function readListPage(value: unknown): { results: unknown[]; cursor: string | null } {
  const page = objectOf(value, 'a list answer');
  const results = page['results'];
  if (results !== undefined && !Array.isArray(results)) throw badResponse('results is not a list');
  const cursor = optionalString(page, 'cursor');
  return { results: results ?? [], cursor: cursor === '' ? null : cursor };
}

/**
 * Properties the manager computes (PolicyConfigResource / ManagedResource):
 * left out of a write; `_revision` alone is sent back.
 */
const computed = new Set([
  '_create_time',
  '_create_user',
  '_last_modified_time',
  '_last_modified_user',
  '_links',
  '_protection',
  '_schema',
  '_self',
  '_system_owned',
  'marked_for_delete',
  'overridden',
  'parent_path',
  'path',
  'realization_id',
  'relative_path',
  'remote_path',
  'unique_id',
  'origin_site_id',
  'owner_id',
  'rule_count',
]);

/** The object as read, without what the manager computes: the base of a write. */
export function writable(raw: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(raw)) if (!computed.has(key)) out[key] = value;
  return out;
}
