import type DataLoader from 'dataloader';
import type { GatewayContext } from '../../context.ts';
import { checkNsxId } from '../../inputs/network.ts';
import type { NsxLoaders } from '../../loaders/nsx.ts';
import type { CallContext } from '../../http/upstream-http.ts';
import type { NetworkManager } from '../../upstreams/nsx/network-manager.ts';

/**
 * What the create, update and delete of a grouping object (an IP set, a
 * service) need to know of its kind: the input check, the client's calls and
 * its loaders. `update` answers the object read back, or undefined (then it
 * is read again through its loader).
 */
export interface GroupingKind<Input, Draft, Item> {
  check(input: Input): Draft;
  byId(loaders: NsxLoaders): DataLoader<string, Item>;
  byScope(loaders: NsxLoaders): DataLoader<string, Item[]>;
  create(nsx: NetworkManager, call: CallContext, scopeId: string, draft: Draft): Promise<string>;
  update(
    nsx: NetworkManager,
    call: CallContext,
    id: string,
    draft: Draft,
  ): Promise<Item | undefined>;
  remove(nsx: NetworkManager, call: CallContext, id: string, force: boolean): Promise<void>;
}

export interface GroupingMutations<Input, Item> {
  create(context: GatewayContext, scopeId: string, input: Input): Promise<Item>;
  update(context: GatewayContext, id: string, input: Input): Promise<Item>;
  remove(
    context: GatewayContext,
    id: string,
    force: boolean | null,
  ): Promise<{ id: string; deleted: true }>;
}

/**
 * The mutations of one kind of grouping object. Every write leaves each
 * scope's list stale, and the object's own entry: a created or updated
 * object is answered through it (read back, or primed with what the update
 * answered).
 */
export function groupingMutations<Input, Draft, Item>(
  kind: GroupingKind<Input, Draft, Item>,
): GroupingMutations<Input, Item> {
  const forget = ({ loaders }: GatewayContext, id: string): DataLoader<string, Item> => {
    kind.byScope(loaders.nsx).clearAll();
    return kind.byId(loaders.nsx).clear(id);
  };
  return {
    async create(context, scopeId, input) {
      checkNsxId(scopeId, 'scopeId');
      const draft = kind.check(input);
      const id = await kind.create(context.clients.nsx, context.call, scopeId, draft);
      return forget(context, id).load(id);
    },
    async update(context, id, input) {
      checkNsxId(id, 'id');
      const draft = kind.check(input);
      const record = await kind.update(context.clients.nsx, context.call, id, draft);
      const entry = forget(context, id);
      if (record === undefined) return entry.load(id);
      entry.prime(id, record);
      return record;
    },
    async remove(context, id, force) {
      checkNsxId(id, 'id');
      // An explicit `force: null` arrives as null despite the default.
      await kind.remove(context.clients.nsx, context.call, id, force === true);
      forget(context, id);
      return { id, deleted: true };
    },
  };
}
