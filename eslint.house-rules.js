/**
 * The house's rules (docs/architecture.md, "Rules a tool keeps"), as ESLint config objects: part of
 * eslint.config.js, and linted alone by test/lint/house-rules.test.ts, which shows each one failing
 * on a deliberate violation.
 */

/** SQL text: a string that starts as a statement does. */
const SQL = String.raw`/^\s*(select\s|insert\s+into\s|update\s+\w+\s+set\s|delete\s+from\s|with\s+\w+\s+as\s)/i`
const SQL_MESSAGE = 'SQL lives in a *.queries.ts file (docs/architecture.md, "One way to the database").'
const ERROR_BODY_MESSAGE = 'Error bodies are written by http/answers.ts (sendError, errorBody): docs/architecture.md, "One error writer".'

/** The rules every server file keeps; the files named in each exception are listed below. */
const databaseSyntax = [
  { selector: `Literal[value=${SQL}]`, message: SQL_MESSAGE },
  { selector: `TemplateLiteral > TemplateElement:first-child[value.raw=${SQL}]`, message: SQL_MESSAGE },
]
const databaseProperties = [
  { property: 'getConnection', message: 'Reach the database through the entity manager (docs/architecture.md).' },
  { property: 'getKnex', message: 'Reach the database through the entity manager (docs/architecture.md).' },
]
const databaseImports = {
  paths: [
    { name: 'pg', message: 'Reach the database through the entity manager; the pg exceptions are listed in docs/architecture.md.' },
    { name: 'knex', message: 'Reach the database through the entity manager (docs/architecture.md).' },
  ],
}
const errorBodySyntax = [
  {
    selector: "CallExpression[callee.property.name=/^(json|send|end|write)$/] > ObjectExpression > Property[key.name='error']",
    message: ERROR_BODY_MESSAGE,
  },
  {
    selector: "CallExpression[callee.object.name='JSON'][callee.property.name='stringify'] > ObjectExpression > Property[key.name='error']",
    message: ERROR_BODY_MESSAGE,
  },
]
const domainErrors = {
  selector: "ThrowStatement > NewExpression[callee.name='Error']",
  message: 'A domain function throws AppError (errors.ts): a plain Error is a fault, answered 500.',
}
const namedExports = { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' }

export const houseRules = [
  {
    // Test files share their worker's modules (vitest.config.ts, isolate: false): a mocked module
    // or a stubbed global would reach the next file.
    files: ['test/**/*.ts', 'server/src/**/*.test.ts', 'sdk/src/**/*.test.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        ...['mock', 'doMock', 'stubGlobal', 'stubEnv'].map((property) => ({
          object: 'vi',
          property,
          message: 'Test files share modules (isolate: false): use a real part, not a mock.',
        })),
      ],
    },
  },
  {
    files: ['server/src/**/*.ts'],
    rules: {
      'no-restricted-syntax': ['error', namedExports, ...databaseSyntax, ...errorBodySyntax],
      'no-restricted-properties': ['error', ...databaseProperties],
      'no-restricted-imports': ['error', databaseImports],
    },
  },
  {
    // Domain functions: their errors are answers.
    files: ['server/src/modules/**/*.service.ts'],
    rules: { 'no-restricted-syntax': ['error', namedExports, ...databaseSyntax, ...errorBodySyntax, domainErrors] },
  },
  {
    // SQL's own files: the queries and the migrations.
    files: ['server/src/**/*.queries.ts', 'server/src/db/migrations/*.ts'],
    rules: { 'no-restricted-syntax': ['error', namedExports, ...errorBodySyntax] },
  },
  {
    // The database's exceptions (docs/architecture.md): the ORM's setup, Better Auth's pool, and the
    // pool's counts for the metrics.
    files: ['server/src/db/orm.ts', 'server/src/modules/staff/auth.ts', 'server/src/metrics.ts'],
    rules: { 'no-restricted-properties': 'off', 'no-restricted-imports': 'off' },
  },
  {
    // Clients of their own, outside the ORM, with their own statements: LISTEN's connection, and the
    // embedded cluster's admin client (it creates databases before any ORM exists). Tests beside the
    // code may write SQL as their fixtures.
    files: ['server/src/db/notifications.ts', 'server/src/db/embedded-postgres.ts', 'server/src/**/*.test.ts'],
    rules: {
      'no-restricted-properties': 'off',
      'no-restricted-imports': 'off',
      'no-restricted-syntax': ['error', namedExports, ...errorBodySyntax],
    },
  },
  {
    // The one error writer, and oRPC's body encoder.
    files: ['server/src/http/answers.ts', 'server/src/errors.ts'],
    rules: { 'no-restricted-syntax': ['error', namedExports, ...databaseSyntax] },
  },
  {
    // Settings depend on nothing in the modules: they read their defaults from here.
    // (A type names a module's settings and runs nothing: allowed.)
    files: ['server/src/config.ts'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          ...databaseImports,
          patterns: [
            {
              group: ['./modules/*', '**/modules/**'],
              allowTypeImports: true,
              message: 'config.ts depends on nothing in modules/: move the default here.',
            },
          ],
        },
      ],
    },
  },
]
