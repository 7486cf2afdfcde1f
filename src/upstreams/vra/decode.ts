import { UpstreamBadResponseError } from '../../errors.ts';
import type {
  WireCatalogItem,
  WireOrganization,
  WirePage,
  WireProvider,
  WireRef,
  WireToken,
} from './wire.ts';

type Json = Record<string, unknown>;

export function bad(reason: string, status: number): UpstreamBadResponseError {
  return new UpstreamBadResponseError('vra', reason, status);
}

/** Parses a JSON answer body; anything else is UPSTREAM_BAD_RESPONSE. */
export function parseJson(body: string, status: number): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    throw bad('a body that is not JSON', status);
  }
}

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isOptionalString(value: unknown): value is string | null | undefined {
  return value === undefined || value === null || typeof value === 'string';
}

export function isRef(value: unknown): value is WireRef | null | undefined {
  return (
    value === undefined ||
    value === null ||
    (isObject(value) && typeof value['id'] === 'string' && isOptionalString(value['label']))
  );
}

function isOrganization(value: unknown): value is WireOrganization | null | undefined {
  return (
    value === undefined ||
    value === null ||
    (isObject(value) &&
      typeof value['tenantRef'] === 'string' &&
      typeof value['tenantLabel'] === 'string' &&
      isOptionalString(value['subtenantRef']) &&
      isOptionalString(value['subtenantLabel']))
  );
}

export function decodeToken(value: unknown, status: number): WireToken & { expiresAt: number } {
  if (!isObject(value) || typeof value['id'] !== 'string' || value['id'] === '') {
    throw bad('a token answer without an id', status);
  }
  const expires = value['expires'];
  const expiresAt = typeof expires === 'string' ? Date.parse(expires) : Number.NaN;
  if (typeof expires !== 'string' || Number.isNaN(expiresAt)) {
    throw bad('a token answer without a valid expires date', status);
  }
  return { id: value['id'], expires, expiresAt };
}

export function decodeProvider(value: unknown, status: number): WireProvider {
  if (
    !isObject(value) ||
    typeof value['id'] !== 'string' ||
    typeof value['name'] !== 'string' ||
    typeof value['providerTypeId'] !== 'string'
  ) {
    throw bad('a provider without id, name or providerTypeId', status);
  }
  return value as unknown as WireProvider;
}

/**
 * A catalog item. Also accepts the provider catalog item shape of the register
 * call (flat `catalogItemTypeId`/`outputResourceTypeId`), since what that call
 * answers is unconfirmed (docs/upstreams.md, vRA): it is turned into the listed shape.
 */
export function decodeCatalogItem(
  value: unknown,
  status: number,
  providerId?: string,
): WireCatalogItem {
  if (!isObject(value) || typeof value['id'] !== 'string' || typeof value['name'] !== 'string') {
    throw bad('a catalog item without id or name', status);
  }
  const flat = catalogItemFromFlat(value, providerId);
  const item = flat ?? value;
  const binding = item['providerBinding'];
  const bindingOk =
    binding === undefined ||
    binding === null ||
    (isObject(binding) &&
      typeof binding['bindingId'] === 'string' &&
      isRef(binding['providerRef']));
  if (
    !isOptionalString(item['description']) ||
    !isOptionalString(item['iconId']) ||
    !isRef(item['catalogItemTypeRef']) ||
    !isRef(item['outputResourceTypeRef']) ||
    !isOrganization(item['organization']) ||
    !bindingOk
  ) {
    throw bad('a catalog item with fields of unexpected types', status);
  }
  return item as unknown as WireCatalogItem;
}

function catalogItemFromFlat(value: Json, providerId: string | undefined): Json | undefined {
  const typeId = value['catalogItemTypeId'];
  const outputId = value['outputResourceTypeId'];
  if (typeof typeId !== 'string' && typeof outputId !== 'string') return undefined;
  const rest = { ...value };
  delete rest['catalogItemTypeId'];
  delete rest['outputResourceTypeId'];
  return {
    ...rest,
    catalogItemTypeRef: typeof typeId === 'string' ? { id: typeId, label: null } : null,
    outputResourceTypeRef: typeof outputId === 'string' ? { id: outputId, label: null } : null,
    ...(providerId === undefined || rest['providerBinding'] !== undefined
      ? {}
      : {
          providerBinding: { bindingId: value['id'], providerRef: { id: providerId, label: null } },
        }),
  };
}

export function decodePage<T>(
  value: unknown,
  status: number,
  decodeItem: (item: unknown, status: number) => T,
): WirePage<T> {
  if (!isObject(value) || !Array.isArray(value['content']) || !isObject(value['metadata'])) {
    throw bad('a list without content or metadata', status);
  }
  const metadata = value['metadata'];
  const numbers = ['size', 'totalElements', 'totalPages', 'number', 'offset'] as const;
  for (const name of numbers) {
    const n = metadata[name];
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) {
      throw bad(`list metadata without a whole ${name}`, status);
    }
  }
  return {
    content: value['content'].map((item) => decodeItem(item, status)),
    metadata: {
      size: metadata['size'] as number,
      totalElements: metadata['totalElements'] as number,
      totalPages: metadata['totalPages'] as number,
      number: metadata['number'] as number,
      offset: metadata['offset'] as number,
    },
  };
}
