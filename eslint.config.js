// ESLint (npm run lint): type-aware rules from typescript-eslint over the TypeScript of src/,
// test/ and scripts/ (scripts/*.mjs are parsed, with no rules: they have no types to check). The set is small on purpose: promises nobody awaits or catches, and `any`
// leaking through the typed code (JSON.parse, postMessage data, untyped libraries) into places
// that trust their types. tsc --noEmit (npm run typecheck) does the rest.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'dist-*/', 'test-artifacts/', 'public/', 'scratch/', '**/*.d.mts'] },
  {
    files: ['src/**/*.{ts,tsx}', 'test/**/*.ts', 'scripts/**/*.ts', 'vite.config.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // a promise dropped on the floor loses its rejection: await it, return it, or mark a
      // deliberate fire-and-forget with `void` (and say why beside it)
      '@typescript-eslint/no-floating-promises': 'error',
      // a promise passed where a plain value or a void callback is expected (if (p), onClick={async…})
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
      '@typescript-eslint/await-thenable': 'error',
      // `any` from JSON.parse, message events or untyped code must be narrowed before use
      '@typescript-eslint/no-unsafe-assignment': 'error',
      '@typescript-eslint/no-unsafe-member-access': 'error',
      '@typescript-eslint/no-unsafe-call': 'error',
      '@typescript-eslint/no-unsafe-return': 'error',
      '@typescript-eslint/no-unsafe-argument': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      // terminal and file text is scrubbed of control characters on purpose (src/util/show.ts)
      'no-control-regex': 'error',
    },
  },
);
