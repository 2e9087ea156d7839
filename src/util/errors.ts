// The error every bad configuration, file or flag value raises: the message names the field and
// says what to change, so the CLI and the page show it as one line (no stack). It lives here, a
// leaf, because the model, the RL core, the loops, the CLI and the page all raise it.

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** What a caught value says, for one line of the page: an Error's message, else the value as text. */
export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return row[b.length];
}

/** ' (did you mean "x"?)' when a known key is close to the unknown one, else ''. */
export function didYouMean(key: string, known: readonly string[]): string {
  // an edit distance costs length × length: a long key is no typo of a short name
  if (key.length > 100) return '';
  let best = '';
  let bestD = Infinity;
  for (const k of known) {
    const d = editDistance(key.toLowerCase(), k.toLowerCase());
    if (d < bestD) [best, bestD] = [k, d];
  }
  return bestD <= Math.max(2, Math.floor(key.length / 3)) ? ` (did you mean "${best}"?)` : '';
}
