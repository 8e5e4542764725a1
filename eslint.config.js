// Type-aware lint gate (`make lint`). Formatting is Prettier's job (.prettierrc.json), so no stylistic rules here.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Test-side code: suites, their helpers and fixtures, benchmarks.
const TEST_FILES = [
  'test/**',
  'bench/**',
  'backends/**/*.test.ts',
  'backends/testing/**',
  'backends/postgres/test-support.ts',
  'backends/embedded/kill-test-writer.ts',
];

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'bench/results/', '.data/'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      // tsconfig.json already includes every TypeScript directory (tests and benchmarks too), so one program serves all.
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // The code compares with === throughout; the one place that needs == says why.
      eqeqeq: 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // A default clause is the author's answer for the members not listed (typeof switches, wire values a newer
      // client may send); what the rule must catch is a switch without one that misses a member of a grown union.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // `_` marks a parameter a signature requires or a property dropped from a rest copy (tsc's convention too).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // The code writes `import { a, type B }`; verbatimModuleSyntax already keeps type-only imports out of the output.
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // Rejecting with what was caught, or with an AbortSignal's reason, passes on what came in; the rule is there to
      // stop inventing non-Error reasons.
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allowThrowingUnknown: true, allowThrowingAny: true },
      ],

      // Turned off because they would only churn:
      // - no-unsafe-*: client JSON is typed `unknown` and narrowed; `any` enters only through third-party types
      //   (Koa's `next(): Promise<any>`, @peculiar/x509's key pair, which names DOM types outside lib ES2023) and the
      //   CEL AST's marked boundary, and the family flags every use downstream of those (~120 sites in the server,
      //   ~2,700 in the tests) without a bug among them.
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // - require-await: an `async` function without `await` is how the code implements a Promise-returning contract
      //   (Storage, Authorizer, handlers) so that a throw becomes a rejection; dropping `async` would change that.
      '@typescript-eslint/require-await': 'off',
      // - no-base-to-string: its hits are `String(x)` of client JSON narrowed only to "not undefined", printed in
      //   Go-worded messages; what to print for a non-string `kind` is a wording question, not a bug class.
      '@typescript-eslint/no-base-to-string': 'off',
      // - no-this-alias: it targets `const self = this` in place of arrow functions; its only hits are tree walks
      //   starting at `this` (`let node = this`).
      '@typescript-eslint/no-this-alias': 'off',

      // Prettier breaks long member chains before `[` (`.watch(...)\n[Symbol.asyncIterator]()`), which this rule takes
      // for an ASI hazard; with one formatter writing every line break, there is no hand-made one left to catch.
      'no-unexpected-multiline': 'off',
    },
  },
  {
    files: TEST_FILES,
    rules: {
      // Response bodies are parsed JSON, read field by field; typing each one would add nothing an assertion lacks.
      '@typescript-eslint/no-explicit-any': 'off',
      // chai's property assertions (`expect(x).to.be.true`, `.and.not.empty`) are expressions by design.
      '@typescript-eslint/no-unused-expressions': 'off',
    },
  },
  {
    // Plain JavaScript (the bin/ launcher, this file) sits outside tsconfig.json: linted without type information.
    files: ['**/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: 'readonly', URL: 'readonly', console: 'readonly' } },
  },
);
