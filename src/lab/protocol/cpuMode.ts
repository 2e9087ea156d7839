// CPU mode's fixed choices, shared by the page and the CPU worker (no engine code here). The
// float64 reference engine samples one sequence at a time and trains without SIMD, so only the
// smallest base policy trains at a pace worth watching.
export const CPU_MODE = Object.freeze({
  /** the one base policy CPU mode offers */
  policy: 'tiny',
  /** how the page names the mode wherever it shows it */
  label: 'CPU mode (reference engine, tiny policy)',
});
