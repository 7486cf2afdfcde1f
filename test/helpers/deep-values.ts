/** `levels` arrays nested in each other (`[[[]]]` is 3), built without recursion. */
export function nestedArrays(levels: number): unknown[] {
  const root: unknown[] = [];
  let inner = root;
  for (let level = 1; level < levels; level += 1) {
    const next: unknown[] = [];
    inner.push(next);
    inner = next;
  }
  return root;
}
