/** Waits until `condition` holds, checking every 10 ms; fails after `limitMs`. */
export async function until(condition: () => boolean, limitMs = 10_000): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > limitMs) throw new Error(`condition not met within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));
