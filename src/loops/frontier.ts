// The frontier reward of a self-play writer (SPICE's challenger, TTSP's proposer): what a problem
// earns from the pass rate p of the solver on it. Four shapes (SPICE's Table 4): the paper's
// variance-Gaussian peaking at p = ½, R-Zero's tent, Absolute-Zero's 1 − p inside (0, 1), and the
// threshold 𝟙[0 < p < 1]. Pure, shared by the loops that reward a writer this way.

export type FrontierShape = 'gaussian' | 'r-zero' | 'absolute-zero' | 'threshold';
export const FRONTIER_SHAPES: readonly FrontierShape[] = ['gaussian', 'r-zero', 'absolute-zero', 'threshold'];

/** Pass rates are k/K; "0 < p < 1" must not be fooled by rounding. */
const EDGE = 1e-9;

/** The reward of a valid problem the solver solved with pass rate p. */
export function frontierReward(p: number, shape: FrontierShape, tau: number): number {
  const open = p > EDGE && p < 1 - EDGE;
  switch (shape) {
    case 'gaussian': {
      const v = p * (1 - p);
      return Math.exp(-((v - 0.25) ** 2) / (2 * tau));
    }
    case 'r-zero':
      return 1 - 2 * Math.abs(p - 0.5);
    case 'absolute-zero':
      return open ? 1 - p : 0;
    case 'threshold':
      return open ? 1 : 0;
  }
}

/** The shape drawn against p on [0, 1] (for the page's curve), `n` + 1 points. */
export function frontierCurve(shape: FrontierShape, tau: number, n = 100): { p: number; r: number }[] {
  return Array.from({ length: n + 1 }, (_, i) => ({ p: i / n, r: frontierReward(i / n, shape, tau) }));
}

/** The shape as a curve view's points (101 pass rates on [0, 1]). */
export const frontierPoints = (shape: FrontierShape, tau: number): { x: number; y: number }[] => frontierCurve(shape, tau).map((q) => ({ x: q.p, y: q.r }));

/** The pass rates `n` attempts can give (k of n right) with the shape's reward at each: the curve's dots. */
export const frontierDots = (shape: FrontierShape, tau: number, n: number): { x: number; y: number }[] =>
  Array.from({ length: n + 1 }, (_, k) => ({ x: k / n, y: frontierReward(k / n, shape, tau) }));

/** The shape's name for a caption, with τ when it is the gaussian. */
export const frontierLabel = (shape: FrontierShape, tau: number): string => `${shape}${shape === 'gaussian' ? ` (τ = ${tau})` : ''}`;

/** The help text of a shape field, naming the writer (challenger, proposer). */
export const frontierHelp = (writer: string): string =>
  `the ${writer}'s reward from the solver pass rate p: gaussian exp(−(p(1−p) − ¼)²/2τ) (SPICE's); r-zero 1 − 2|p − ½|; absolute-zero 1 − p on 0 < p < 1; threshold 𝟙[0 < p < 1] (SPICE's Table 4)`;
