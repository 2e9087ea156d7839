// Zero-variance filtering and DAPO's dynamic-sampling decision.
import { describe, expect, it } from 'vitest';
import { dynamicSamplingDecision, filterZeroVariance, groupStats, takeGroups } from '../../src/rl/filter';
import type { Role } from '../../src/world/tokenizer';

const t = (role: Role, groupId: number, reward: number) => ({ role, groupId, reward });

describe('filterZeroVariance', () => {
  const batch = [
    t('solve', 0, 1), t('solve', 0, 1), // all correct: dropped
    t('solve', 1, 0), t('solve', 1, 1), // mixed: kept
    t('vary', 1, 0), t('vary', 1, 0), // same groupId, other role, all wrong: dropped on its own
    t('solve', 2, 0.1), t('solve', 2, 0.1), t('solve', 2, 0.3), // mixed: kept
    t('teach', 9, 1), // a group of one: zero variance
  ];

  it('drops groups with equal rewards, keeps the order of the rest, reports the fraction', () => {
    const r = filterZeroVariance(batch);
    expect(r.kept).toEqual([batch[2], batch[3], batch[6], batch[7], batch[8]]);
    expect([r.keptGroups, r.droppedGroups]).toEqual([2, 3]);
    expect(r.fracZeroStd).toBe(3 / 5);
    expect(filterZeroVariance([]).fracZeroStd).toBe(0);
  });

  it('group statistics are keyed by role and group', () => {
    const s = groupStats(batch);
    expect(s.map((g) => `${g.role}:${g.groupId}:${g.indices.join(',')}`)).toEqual(['solve:0:0,1', 'solve:1:2,3', 'vary:1:4,5', 'solve:2:6,7,8', 'teach:9:9']);
    expect(s[1].mean).toBe(0.5);
    expect(s[1].std).toBe(0.5);
  });

  it('takeGroups keeps the first n groups whole', () => {
    expect(takeGroups(batch, 2)).toEqual(batch.slice(0, 4));
    expect(takeGroups(batch, 0)).toEqual([]);
  });
});

describe('dynamicSamplingDecision', () => {
  it('trains once enough groups are kept, trimming the surplus', () => {
    expect(dynamicSamplingDecision({ keptGroups: 9, targetGroups: 8, genBatches: 2, maxGenBatches: 10 })).toEqual({ action: 'train', take: 8 });
  });

  it('samples more while extra generation batches remain (the first batch is not extra)', () => {
    expect(dynamicSamplingDecision({ keptGroups: 3, targetGroups: 8, genBatches: 1, maxGenBatches: 10 })).toEqual({ action: 'sample_more', missing: 5 });
    expect(dynamicSamplingDecision({ keptGroups: 3, targetGroups: 8, genBatches: 10, maxGenBatches: 10 }).action).toBe('sample_more');
  });

  it('is exhausted after maxGenBatches extra batches, with a message', () => {
    const d = dynamicSamplingDecision({ keptGroups: 3, targetGroups: 8, genBatches: 11, maxGenBatches: 10 });
    expect(d.action).toBe('exhausted');
    if (d.action === 'exhausted') expect(d.message).toMatch(/kept 3 of 8 groups after 10 extra generation batches/);
  });

  it('rejects a decision before the first batch', () => {
    expect(() => dynamicSamplingDecision({ keptGroups: 0, targetGroups: 8, genBatches: 0, maxGenBatches: 10 })).toThrow(/genBatches ≥ 1/);
  });
});
