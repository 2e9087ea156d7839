// Named, seeded data sets. Each set is built from its own seed, in a fixed order, so every
// build gives the same problems. Held-out sets (evaluation, TTSP candidates) are disjoint from
// each other and from the training set by canonical expression text, and `sampleExample`
// never uses a held-out problem either.
import { generateProblem, type Difficulty, type Problem } from './generator';
import { makeRng, randInt, shuffled, type Rng } from './rng';

export interface SetInfo {
  name: string;
  description: string;
  size: number;
  /** Held out from training and pretraining. */
  heldOut: boolean;
}

type SetDefinition = SetInfo & { seed: number } & (
  | {
      /** Difficulty of the next problem (may vary from draw to draw). */
      difficulty: (rng: Rng) => Difficulty;
    }
  | {
      /** Problems per operation count (index 0 = 1 operation), drawn level by level, then shuffled; sums to size. */
      levels: readonly number[];
    }
);

/**
 * The training set's problems per operation count, 1..4. RL learns from groups whose answers
 * differ, and the base's pass rate falls steeply with operations (the small base's card: 0.86,
 * 0.61, 0.19 and 0.13 for 1..4; the base before it 0.61, 0.32, 0.08, 0.06, where a uniform mix
 * put 60 % of the problems where nearly every group was all wrong), so the set leans to 1-2
 * operations and keeps 3-4 as the harder tail. With operands 0..9 about 400 one-operation
 * problems are not held out; the set takes 250 of them.
 */
export const TRAIN_LEVELS: readonly number[] = [250, 400, 225, 125];

const levelSet = (ops: number): SetDefinition => ({
  name: `eval-ops${ops}`,
  description: `held-out evaluation, ${ops} operation${ops > 1 ? 's' : ''} per problem`,
  size: 100,
  heldOut: true,
  seed: 1000 + ops,
  difficulty: () => ops,
});

/** In build order: held-out sets first, so the training set can avoid all of them. */
const DEFINITIONS: readonly SetDefinition[] = [
  levelSet(1),
  levelSet(2),
  levelSet(3),
  levelSet(4),
  {
    name: 'eval-mixed',
    description: 'held-out evaluation, 1 to 4 operations, uniform',
    size: 200,
    heldOut: true,
    seed: 1005,
    difficulty: (rng) => randInt(rng, 1, 4),
  },
  {
    name: 'ttsp-candidates',
    description: 'held-out TTSP target candidates, 2 to 4 operations; sort them with splitTargets',
    size: 200,
    heldOut: true,
    seed: 1006,
    difficulty: (rng) => randInt(rng, 2, 4),
  },
  {
    name: 'train',
    description: `training set with gold answers, ${TRAIN_LEVELS.join(' / ')} problems of 1 / 2 / 3 / 4 operations, shuffled`,
    size: TRAIN_LEVELS.reduce((a, n) => a + n, 0),
    heldOut: false,
    seed: 1,
    levels: TRAIN_LEVELS,
  },
];

let built: Map<string, readonly Problem[]> | null = null;

function buildAll(): Map<string, readonly Problem[]> {
  const taken = new Set<string>();
  const sets = new Map<string, readonly Problem[]>();
  for (const def of DEFINITIONS) {
    const rng = makeRng(def.seed);
    let problems: Problem[] = [];
    const draw = (count: number, difficulty: (rng: Rng) => Difficulty, what: string) => {
      const start = problems.length;
      for (let draws = 0; problems.length - start < count; draws++) {
        if (draws > count * 50) throw new Error(`data set ${def.name}: too few distinct problems ${what}`);
        const p = generateProblem(rng, difficulty(rng));
        if (taken.has(p.text)) continue;
        taken.add(p.text);
        problems.push(p);
      }
    };
    if ('levels' in def) {
      def.levels.forEach((count, i) => draw(count, () => i + 1, `with ${i + 1} operation${i ? 's' : ''}`));
      problems = shuffled(rng, problems);
    } else draw(def.size, def.difficulty, '');
    sets.set(def.name, problems);
  }
  return sets;
}

function allSets(): Map<string, readonly Problem[]> {
  built ??= buildAll();
  return built;
}

export function listSets(): SetInfo[] {
  return DEFINITIONS.map(({ name, description, size, heldOut }) => ({ name, description, size, heldOut }));
}

/** The problems of a named set (built once, then cached). */
export function loadSet(name: string): readonly Problem[] {
  const set = allSets().get(name);
  if (!set) throw new Error(`unknown data set '${name}'; known sets: ${DEFINITIONS.map((d) => d.name).join(', ')}`);
  return set;
}

let heldOut: Set<string> | null = null;

/** Whether a problem text belongs to a held-out set. */
export function isHeldOut(text: string): boolean {
  if (!heldOut) {
    heldOut = new Set(DEFINITIONS.filter((d) => d.heldOut).flatMap((d) => loadSet(d.name).map((p) => p.text)));
  }
  return heldOut.has(text);
}

/**
 * TTSP target selection from the base policy's per-problem pass rate (mean@512):
 * MidHard has a pass rate in (0.1, 0.7), VeryHard in (0, 0.1]; the rest are not targets.
 */
export function splitTargets<T>(problems: readonly T[], passRates: readonly number[]): { midHard: T[]; veryHard: T[] } {
  if (problems.length !== passRates.length) {
    throw new Error(`splitTargets: ${problems.length} problems but ${passRates.length} pass rates`);
  }
  const midHard: T[] = [];
  const veryHard: T[] = [];
  problems.forEach((p, i) => {
    const rate = passRates[i];
    if (rate > 0.1 && rate < 0.7) midHard.push(p);
    else if (rate > 0 && rate <= 0.1) veryHard.push(p);
  });
  return { midHard, veryHard };
}
