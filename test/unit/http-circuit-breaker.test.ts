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

/** Every caller that tries at once: how many were let through. */
function concurrentCallers(circuit: CircuitBreaker, count: number): CircuitPass[] {
  return Array.from({ length: count }, () => circuit.tryAcquire()).filter(
    (granted): granted is CircuitPass => granted !== undefined,
  );
}

describe('the circuit breaker', () => {
  it('lets every call through while closed and opens only after consecutive failures', () => {
    const circuit = breaker();
    pass(circuit).failed();
    pass(circuit).failed();
    pass(circuit).succeeded();
    pass(circuit).failed();
    pass(circuit).failed();
    expect(circuit.state).toBe('closed');
    pass(circuit).failed();
    expect(circuit.state).toBe('open');
  });

  it('counts an abandoned call neither as a failure nor as a success', () => {
    const circuit = breaker();
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
    const circuit = breaker();
    open(circuit);
    vi.advanceTimersByTime(resetMs);
    expect(concurrentCallers(circuit, 50)).toHaveLength(1);
    expect(concurrentCallers(circuit, 50)).toHaveLength(0);
    expect(circuit.state).toBe('half-open');
  });

  it('closes when the probe succeeds', () => {
    const circuit = breaker();
    open(circuit);
    vi.advanceTimersByTime(resetMs);
    const [probe] = concurrentCallers(circuit, 10);
    probe?.succeeded();
    expect(circuit.state).toBe('closed');
    expect(concurrentCallers(circuit, 10)).toHaveLength(10);
  });

  it('opens again for another resetMs when the probe fails, then lets one new probe through', () => {
    const circuit = breaker();
    open(circuit);
    vi.advanceTimersByTime(resetMs);
    const [probe] = concurrentCallers(circuit, 10);
    probe?.failed();
    expect(circuit.state).toBe('open');
    expect(concurrentCallers(circuit, 10)).toHaveLength(0);
    vi.advanceTimersByTime(resetMs);
    expect(concurrentCallers(circuit, 10)).toHaveLength(1);
  });

  it('lets the next caller probe when the probe is abandoned (its client left)', () => {
    const circuit = breaker();
    open(circuit);
    vi.advanceTimersByTime(resetMs);
    const [probe] = concurrentCallers(circuit, 10);
    probe?.abandoned();
    expect(circuit.state).toBe('half-open');
    expect(concurrentCallers(circuit, 10)).toHaveLength(1);
  });

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
