// The update's metrics as every loop reports them: the loss head's entropy renamed (one name per
// quantity, LOOPS.md §0: `entropy` is the sampling entropy). The figures themselves (means, rates,
// sampling entropy, cosines) live in src/metrics.

/** The update's metrics with the loss head's entropy under `update/entropy`. */
export function renameEntropy(m: Record<string, number>): Record<string, number> {
  const { entropy, ...rest } = m;
  return entropy === undefined ? rest : { ...rest, 'update/entropy': entropy };
}
