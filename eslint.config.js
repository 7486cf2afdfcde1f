import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'src/generated/',
      'examples/portal/generated/',
      'coverage/',
      'test-results/',
      '.stryker-tmp/',
      'reports/',
      // the bench's Hive Gateway comparison: its own package, installed on demand
      'test/bench/hive/',
    ],
  },
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { 'import-x': importX },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-confusing-void-expression': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'import-x/no-cycle': 'error',
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'undici', message: 'Upstream HTTP goes through src/http/ only.' }],
          patterns: [{ group: ['**/test/**', '../test/*'], message: 'src/ may not import test/.' }],
        },
      ],
    },
  },
  {
    files: ['src/http/**', 'test/**'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: ['test/**'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  { files: ['*.js'], ...tseslint.configs.disableTypeChecked },
);
