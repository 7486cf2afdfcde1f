import { performance } from 'node:perf_hooks';

/**
 * A reader of this process's own load: each call answers the share of the
 * time since the previous call (0 to 1) its event loop spent running code
 * rather than waiting for events (Node's event-loop utilization).
 */
export function loopBusyReader(): () => number {
  let since = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, since);
    since = now;
    return utilization;
  };
}
