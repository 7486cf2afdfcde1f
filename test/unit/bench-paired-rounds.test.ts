import { describe, expect, it } from 'vitest';
import {
  describeRun,
  featureCost,
  roundOrder,
  spreadOf,
  spreadText,
} from '../../test/bench/paired-rounds.ts';
import { featuresOf } from '../../test/bench/gateway-without.ts';

describe('paired rounds (test/bench/paired-rounds.ts)', () => {
  it('runs the targets in the given order in even rounds and reversed in odd ones', () => {
    expect(roundOrder(['a', 'b', 'c'], 0)).toEqual(['a', 'b', 'c']);
    expect(roundOrder(['a', 'b', 'c'], 1)).toEqual(['c', 'b', 'a']);
    expect(roundOrder(['a', 'b', 'c'], 2)).toEqual(['a', 'b', 'c']);
  });

  it('leaves the list it was given as it was', () => {
    const targets = ['a', 'b'];
    roundOrder(targets, 1);
    expect(targets).toEqual(['a', 'b']);
  });

  it('tells the median, the least and the most of unsorted runs', () => {
    expect(spreadOf([0.5, 0.3, 0.4])).toEqual({ median: 0.4, min: 0.3, max: 0.5 });
    expect(spreadText(spreadOf([0.5, 0.3, 0.4]))).toBe('0.400 (0.300-0.500)');
  });

  it('answers NaN for no runs rather than Infinity', () => {
    const spread = spreadOf([]);
    expect(spread.median).toBeNaN();
    expect(spread.min).toBeNaN();
    expect(spread.max).toBeNaN();
  });

  it('costs a feature as the median with it minus the median without, as a share of the default build', () => {
    const cost = featureCost([0.5, 0.52, 0.48], [0.4, 0.42, 0.38], 0.5);
    expect(cost.with.median).toBe(0.5);
    expect(cost.without.median).toBe(0.4);
    expect(cost.costMs).toBeCloseTo(0.1);
    expect(cost.share).toBeCloseTo(0.2);
  });

  it('counts the rounds in which the run with the feature took more, comparing runs of the same round', () => {
    // sorted, every "with" is above every "without"; round by round, only the second is
    const cost = featureCost([0.3, 0.6, 0.4], [0.35, 0.2, 0.45], 0.5);
    expect(cost.higher).toBe(1);
    expect(cost.rounds).toBe(3);
  });

  it('compares only the rounds both targets ran', () => {
    const cost = featureCost([0.5, 0.5, 0.5], [0.4, 0.4], 0.5);
    expect(cost.rounds).toBe(2);
    expect(cost.higher).toBe(2);
  });

  it('prints a run with its CPU, rate and every process share', () => {
    expect(
      describeRun('base', {
        cpuMsPerOp: 0.4123,
        rate: 2001.4,
        loadGenCoreShare: 0.2,
        coreShares: { simulator: 0.654 },
      }),
    ).toBe('base: 0.412 ms/op, 2001/s, load gen 20%, simulator 65%');
  });
});

describe('the bench entry without features (test/bench/gateway-without.ts)', () => {
  it('reads a comma-separated list of features', () => {
    expect(featuresOf('request-log, metrics')).toEqual(['request-log', 'metrics']);
    expect(featuresOf('')).toEqual([]);
  });

  it('refuses a feature createGateway cannot leave out, naming those it can', () => {
    expect(() => featuresOf('request-log,logging')).toThrow(
      '--without: unknown feature "logging" (request-log, metrics, tracing, root-guard)',
    );
  });
});
