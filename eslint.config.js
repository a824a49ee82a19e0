import js from '@eslint/js'
import tseslint from 'typescript-eslint'

import { houseRules } from './eslint.house-rules.js'

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '.data/**', 'sdk/src/generated/**', 'openapi/openapi.json'] },
  js.configs.recommended,
  // With type information: each file is checked in its own program (tsconfig.json, test/tsconfig.json).
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: [
            'eslint.config.js',
            'eslint.house-rules.js',
            'eslint.house-rules.d.ts',
            '.dependency-cruiser.js',
            '.dependency-cruiser.d.ts',
          ],
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' }],
      // An implementation of an async interface (a transport's send, a migration's up) may have
      // nothing to await; written sync, its throws would escape the promise its callers await.
      '@typescript-eslint/require-await': 'off',
    },
  },
  ...houseRules,
  {
    // Test bodies are `any` by design (test/support/globals.d.ts: asserted against literal shapes).
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // A CommonJS package standing in for `crc-32` (see its index.js).
    files: ['vendor/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', exports: 'writable', Buffer: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The guest pages' script, served as it is to browsers.
    files: ['server/src/modules/gallery-pages/assets/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: Object.fromEntries(
        [
          'window',
          'document',
          'navigator',
          'location',
          'fetch',
          'setTimeout',
          'DOMParser',
          'File',
          'Image',
          'createImageBitmap',
          'URL',
          'Date',
          'JSON',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  // JavaScript is in no TypeScript program.
  { files: ['vendor/**/*.js', 'server/src/modules/gallery-pages/assets/*.js'], ...tseslint.configs.disableTypeChecked },
  {
    files: ['eslint.config.js', '.dependency-cruiser.js', 'eslint.house-rules.js', 'vitest.config.ts', 'vitest.browser.config.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
)
