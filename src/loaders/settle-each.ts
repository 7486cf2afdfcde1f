/**
 * A DataLoader batch function's answer: one result or Error per key, in key
 * order, so that one failed read fails only the fields that asked for it.
 */
export function settleEach<K, V>(
  keys: readonly K[],
  load: (key: K) => Promise<V>,
): Promise<Array<V | Error>> {
  return Promise.all(
    keys.map(async (key) => {
      try {
        return await load(key);
      } catch (error) {
        return error instanceof Error ? error : new Error(String(error));
      }
    }),
  );
}
