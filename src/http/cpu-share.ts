/**
 * A reader of this process's own load: each call answers the share of one
 * core (0 to 1, more with helper threads) the process used since the
 * previous call. CPU time, not the event loop's busy time: a process whose
 * core the host gives to others is not busy, only late (see loop-lag.ts).
 */
export function cpuShareReader(): () => number {
  let cpu = process.cpuUsage();
  let at = performance.now();
  return () => {
    const used = process.cpuUsage(cpu);
    const now = performance.now();
    const share = now > at ? (used.user + used.system) / 1000 / (now - at) : 0;
    cpu = process.cpuUsage();
    at = now;
    return share;
  };
}
