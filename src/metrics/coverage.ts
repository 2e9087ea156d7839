// Concept coverage and topic mix (OpenSIR plots, LOOPS.md §4). Concepts are read exactly off
// each problem's syntax tree by the world (conceptsOf), so both metrics are exact counts.
// Pure and browser-safe.
import { conceptKey, conceptTags, CONCEPT_TAGS, type ConceptTag, type Concepts } from '../world';

/** Unique concept keys seen so far, with the step each first appeared at. */
export class ConceptCoverage {
  private readonly firstSeen = new Map<string, number>();
  /** after every add(): the step and the number of unique keys so far */
  readonly history: { step: number; unique: number }[] = [];

  constructor(private readonly keyOf: (c: Concepts) => string = conceptKey) {}

  /** Records the concepts of one step's problems; returns how many keys were new. */
  add(items: readonly Concepts[], step: number): number {
    let added = 0;
    for (const c of items) {
      const key = this.keyOf(c);
      if (!this.firstSeen.has(key)) {
        this.firstSeen.set(key, step);
        added++;
      }
    }
    this.history.push({ step, unique: this.firstSeen.size });
    return added;
  }

  get unique(): number {
    return this.firstSeen.size;
  }

  has(c: Concepts): boolean {
    return this.firstSeen.has(this.keyOf(c));
  }

  /** Keys in the order they were first seen, with that step. */
  keys(): { key: string; step: number }[] {
    return [...this.firstSeen.entries()].map(([key, step]) => ({ key, step }));
  }
}

export interface TopicShare {
  key: string;
  count: number;
  fraction: number;
}

/** How a batch of problems spreads over topics (by default the full concept key), most frequent first. */
export function topicMix(items: readonly Concepts[], keyOf: (c: Concepts) => string = conceptKey): TopicShare[] {
  const counts = new Map<string, number>();
  for (const c of items) counts.set(keyOf(c), (counts.get(keyOf(c)) ?? 0) + 1);
  const total = items.length;
  return [...counts.entries()]
    .map(([key, count]) => ({ key, count, fraction: count / total }))
    .sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * Fraction of problems carrying each concept tag (a problem may carry several, so the
 * fractions need not sum to 1); every tag is present, 0 when unseen. Empty input gives zeros.
 */
export function tagMix(items: readonly Concepts[]): Record<ConceptTag, number> {
  const out = Object.fromEntries(CONCEPT_TAGS.map((t) => [t, 0])) as Record<ConceptTag, number>;
  for (const c of items) for (const t of conceptTags(c)) out[t]++;
  for (const t of CONCEPT_TAGS) if (items.length > 0) out[t] /= items.length;
  return out;
}

/** Coarse topic keys for a less fragmented mix: operation count, or the set of operators and functions. */
export const TOPIC_KEYS = {
  full: conceptKey,
  ops: (c: Concepts) => `ops${c.ops}`,
  operators: (c: Concepts) => [...c.operators, ...c.functions].join(' ') || 'none',
} as const satisfies Record<string, (c: Concepts) => string>;
