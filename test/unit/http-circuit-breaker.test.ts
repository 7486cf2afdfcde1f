import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CircuitBreaker, type CircuitPass } from '../../src/http/circuit-breaker.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const resetMs = 1000;
const breaker = () => new CircuitBreaker({ failureThreshold: 3, resetMs });

/** A pass, failing the test when the breaker sheds the call. */
function pass(circuit: CircuitBreaker): CircuitPass {
  const granted = circuit.tryAcquire();
  if (granted === undefined) throw new Error('the call was shed');
  return granted;
}

/** Opens the circuit with `failureThreshold` failed calls. */
function open(circuit: CircuitBreaker): void {
  for (let i = 0; i < 3; i += 1) pass(circuit).failed();
  expect(circuit.state).toBe('open');
}

/** A circuit opened, then left alone for resetMs. */
function halfOpen(): CircuitBreaker {
  const circuit = breaker();
  open(circuit);
  vi.advanceTimersByTime(resetMs);
  return circuit;
}

/** Every caller that tries at once: how many were let through. */
function concurrentCallers(circuit: CircuitBreaker, count: number): CircuitPass[] {
  return Array.from({ length: count }, () => circuit.tryAcquire()).filter(
    (granted): granted is CircuitPass => granted !== undefined,
  );
}

describe('the circuit breaker', () => {
  it('opens after consecutive failures: a success starts the count again, an abandoned call does not', () => {
    const circuit = breaker();
    pass(circuit).failed();
    pass(circuit).failed();
    pass(circuit).succeeded();
    pass(circuit).failed();
    pass(circuit).failed();
    pass(circuit).abandoned();
    expect(circuit.state).toBe('closed');
    pass(circuit).failed();
    expect(circuit.state).toBe('open');
  });

  it('sheds every call while open, then turns half-open after resetMs', () => {
    const circuit = breaker();
    open(circuit);
    vi.advanceTimersByTime(resetMs - 1);
    expect(concurrentCallers(circuit, 5)).toHaveLength(0);
    expect(circuit.state).toBe('open');
    vi.advanceTimersByTime(1);
    expect(circuit.state).toBe('half-open');
  });

  it('lets exactly one probe through when half-open, however many callers try at once', () => {
    const circuit = halfOpen();
    expect(concurrentCallers(circuit, 50)).toHaveLength(1);
    expect(concurrentCallers(circuit, 50)).toHaveLength(0);
    expect(circuit.state).toBe('half-open');
  });

  it.each([
    ['succeeds', 'succeeded', 'closed', 10, 'closed'],
    ['fails', 'failed', 'open', 0, 'half-open'],
    ['is abandoned (its client left)', 'abandoned', 'half-open', 1, 'half-open'],
  ] as const)(
    'when the probe %s, the circuit is %s and lets %s of 10 callers through; %s a resetMs later',
    (_, end, state, through, later) => {
      const circuit = halfOpen();
      const [probe] = concurrentCallers(circuit, 10);
      probe?.[end]();
      expect(circuit.state).toBe(state);
      expect(concurrentCallers(circuit, 10)).toHaveLength(through);
      vi.advanceTimersByTime(resetMs);
      expect(circuit.state).toBe(later);
    },
  );

  it('lets no second probe out when a call from before the opening ends while the probe is out', () => {
    const circuit = breaker();
    const early = [pass(circuit), pass(circuit)];
    open(circuit);
    vi.advanceTimersByTime(resetMs);
    expect(concurrentCallers(circuit, 10)).toHaveLength(1);
    early[0]?.abandoned();
    expect(concurrentCallers(circuit, 10)).toHaveLength(0);
    early[1]?.failed();
    vi.advanceTimersByTime(resetMs);
    expect(circuit.state).toBe('half-open');
    expect(concurrentCallers(circuit, 10)).toHaveLength(0);
  });

  it('takes only the first report of a pass', () => {
    const circuit = breaker();
    const call = pass(circuit);
    call.failed();
    call.failed();
    call.failed();
    expect(circuit.state).toBe('closed');
  });
});
