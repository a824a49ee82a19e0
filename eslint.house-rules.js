/**
 * The house's rules (docs/architecture.md, "Rules a tool keeps"), as ESLint config objects: part of
 * eslint.config.js, and linted alone by test/lint/house-rules.test.ts, which shows each one failing
 * on a deliberate violation (each gap once found in them included).
 *
 * Each rule is its own rule of the `house` plugin, so that a file's exception turns off that rule and
 * keeps the others (no-restricted-syntax takes one list a file, the last config's whole: an exception
 * had to repeat every other rule's selectors).
 */

/** A table or other name in SQL: plain or quoted, with its schema or not (`"event"`, `public.event`). */
const NAME = String.raw`("[^"]*"|\w+)(\.("[^"]*"|\w+))?`

/**
 * SQL text: a string that starts as a statement does, after any `--` comments and opening brackets
 * (`(select …) union (select …)`). Each alternative asks for what makes the words SQL rather than
 * prose (`update X set`, `truncate X;`), so messages such as "Update the app" pass. No `/` inside:
 * esquery ends a regular expression at the first one.
 */
const STATEMENT = [
  String.raw`select\s`,
  String.raw`insert\s+into\s`,
  String.raw`update\s+(only\s+)?${NAME}(\s*\*)?(\s+(as\s+)?\w+)?\s+set\s`,
  String.raw`delete\s+from\s`,
  String.raw`with\s+(recursive\s+)?${NAME}\s*(\([^)]*\)\s*)?as\s*(not\s+)?(materialized\s*)?\(`,
  String.raw`lock\s+table\s`,
  String.raw`lock\s+(only\s+)?${NAME}\s+in\s`,
  String.raw`truncate\s+table\s`,
  String.raw`truncate\s+(only\s+)?${NAME}\s*(,|;|$|\s(restart|continue|cascade|restrict)\b)`,
  String.raw`merge\s+into\s`,
  String.raw`(create|alter|drop)\s+(or\s+replace\s+|unique\s+|temp\s+|temporary\s+|materialized\s+)*(table|index|view|sequence|schema|type|function|trigger|extension|database|role|policy)\s`,
  String.raw`values\s*\(`,
]
const SQL = String.raw`/^\s*(--[^\n]*\n\s*)*\(*\s*(${STATEMENT.join('|')})/i`
/** The first piece of SQL put together from pieces (joined, concatenated): its first word is enough. */
const SQL_PIECE = String.raw`/^\s*(--[^\n]*\n\s*)*\(*\s*(select|insert|update|delete|with|lock|truncate|merge|values)\b/i`
/** A statement's first words and nothing else, before an interpolated name. */
const SQL_VERB = String.raw`/^\s*(--[^\n]*\n\s*)*\(*\s*(select|insert\s+into|update(\s+only)?|delete\s+from|with(\s+recursive)?|lock(\s+table)?|truncate(\s+table)?|merge\s+into)\s+"?$/i`
const SQL_MESSAGE = 'SQL lives in a *.queries.ts file (docs/architecture.md, "One way to the database").'

/** The database's own clients: pg, its companions (pg-pool, pg-cursor…), knex, and postgres.js. */
const DRIVER = String.raw`/^(pg|pg-[\w-]+|knex|postgres)(\x2f.*)?$/`
const DRIVER_MESSAGE =
  'Reach the database through the entity manager: pg, knex, getConnection() and getKnex() only in the exceptions docs/architecture.md lists ("One way to the database").'

const ERROR_BODY_MESSAGE = 'Error bodies are written by http/answers.ts (sendError, errorBody): docs/architecture.md, "One error writer".'
const ORPC_ERROR_MESSAGE =
  "Errors are made in errors.ts: a refusal is an AppError, whose code is the domain's and whose status is ERROR_CODE_TABLE's (oRPC's ORPCError and its `errors` constructors carry oRPC's codes): docs/architecture.md, \"One error code\"."
const DOMAIN_ERROR_MESSAGE =
  'A domain file throws an AppError (a refusal: its code and status) or a Fault (a fault: a 500 with nothing disclosed if it reaches an answer, and logged), both in errors.ts; a built-in Error says neither.'
const MOCK_MESSAGE = 'Test files share modules (isolate: false): use a real part, not a mock.'
const VI_MESSAGE = '`vi` goes by its own name, so that the rule against mocks sees it: test files share modules (isolate: false).'

/** The built-in error constructors: one thrown in domain code is a fault that does not say so. */
const BUILT_IN_ERROR = /^(Error|TypeError|RangeError|SyntaxError|ReferenceError|EvalError|URIError|AggregateError)$/

/** @typedef {import('eslint').Rule.RuleModule} RuleModule */
/** @typedef {NonNullable<import('eslint').Scope.Reference['writeExpr']>} EsNode (an ESTree node) */

/**
 * A rule that refuses what its selectors match (esquery, as no-restricted-syntax's), each with its
 * message: the selectors are the rule, so a config only turns it on or off.
 * @param {string} description
 * @param {{ selector: string, message: string }[]} selectors
 * @returns {RuleModule}
 */
const selectorRule = (description, selectors) => ({
  meta: { type: 'problem', docs: { description }, schema: [] },
  create: (context) =>
    Object.fromEntries(
      selectors.map(({ selector, message }) => [selector, (/** @type {EsNode} */ node) => context.report({ node, message })]),
    ),
})

/**
 * Whether an expression is, or may be, a value `test` accepts: itself, either branch of a condition,
 * an `Object.assign` of one, or a variable (declared in the file) set to one anywhere.
 * @param {import('eslint').SourceCode} sourceCode
 * @param {EsNode | null | undefined} node
 * @param {(node: EsNode) => boolean} test
 * @param {Set<import('eslint').Scope.Variable>} [seen] the variables followed already
 * @returns {boolean}
 */
function reaches(sourceCode, node, test, seen = new Set()) {
  if (!node) return false
  if (test(node)) return true
  const again = (/** @type {EsNode | null | undefined} */ next) => reaches(sourceCode, next, test, seen)
  switch (node.type) {
    case 'Identifier':
      for (let scope = sourceCode.getScope(node); scope; scope = scope.upper) {
        const variable = scope.set.get(node.name)
        if (!variable) continue
        if (seen.has(variable)) return false
        seen.add(variable)
        return variable.references.some((reference) => again(reference.writeExpr))
      }
      return false
    case 'ConditionalExpression':
      return again(node.consequent) || again(node.alternate)
    case 'LogicalExpression':
      return again(node.left) || again(node.right)
    case 'CallExpression':
      return (
        node.callee.type === 'MemberExpression' &&
        node.callee.object.type === 'Identifier' &&
        node.callee.object.name === 'Object' &&
        node.callee.property.type === 'Identifier' &&
        node.callee.property.name === 'assign' &&
        node.arguments.some(again)
      )
    default: {
      // TypeScript's wrappers, which ESTree does not name: `x as const`, `x satisfies T`, `x!`.
      const wrapper = /** @type {{ type: string, expression?: EsNode }} */ (node)
      return /^TS(As|Satisfies|NonNull)Expression$/.test(wrapper.type) && again(wrapper.expression)
    }
  }
}

/**
 * One error writer: an `{ error }` object given to a writer (`res.json`, `send`, `end`, `write`,
 * `JSON.stringify`), directly, spread, behind a condition, or through a variable set to one.
 * @type {RuleModule}
 */
const errorBodyRule = {
  meta: { type: 'problem', docs: { description: 'Error bodies are written by http/answers.ts' }, schema: [] },
  create(context) {
    const { sourceCode } = context
    /** @type {(node: EsNode) => boolean} */
    const isErrorBody = (node) =>
      node.type === 'ObjectExpression' &&
      node.properties.some((property) =>
        property.type === 'SpreadElement'
          ? reaches(sourceCode, property.argument, isErrorBody)
          : !property.computed &&
            (property.key.type === 'Identifier' ? property.key.name : property.key.type === 'Literal' && property.key.value) === 'error',
      )
    /** @param {EsNode} call */
    const check = (call) => {
      if (call.type !== 'CallExpression') return
      for (const argument of call.arguments)
        if (reaches(sourceCode, argument, isErrorBody)) context.report({ node: argument, message: ERROR_BODY_MESSAGE })
    }
    return {
      'CallExpression[callee.property.name=/^(json|send|end|write)$/]': check,
      "CallExpression[callee.object.name='JSON'][callee.property.name='stringify']": check,
    }
  },
}

/**
 * Domain errors: what a domain file throws or rejects with is an AppError or a Fault, never a built-in
 * error (`Error`, `TypeError`…, with or without `new`, `globalThis.Error`), directly, behind a
 * condition, wrapped by `Object.assign` or through a variable. An error kept as data (a delivery's
 * outcome, an abort's reason) is not thrown: it is the code that throws it that says what it is.
 * @type {RuleModule}
 */
const domainErrorsRule = {
  meta: { type: 'problem', docs: { description: 'Domain files throw AppError or Fault' }, schema: [] },
  create(context) {
    const { sourceCode } = context
    /** @type {(node: EsNode) => boolean} */
    const isBuiltInError = (node) => {
      if (node.type !== 'NewExpression' && node.type !== 'CallExpression') return false
      const { callee } = node
      if (callee.type === 'Identifier') return BUILT_IN_ERROR.test(callee.name)
      return (
        callee.type === 'MemberExpression' &&
        callee.object.type === 'Identifier' &&
        callee.object.name === 'globalThis' &&
        callee.property.type === 'Identifier' &&
        BUILT_IN_ERROR.test(callee.property.name)
      )
    }
    /** @param {EsNode | null | undefined} error */
    const check = (error) => {
      if (error && reaches(sourceCode, error, isBuiltInError)) context.report({ node: error, message: DOMAIN_ERROR_MESSAGE })
    }
    return {
      ThrowStatement: (node) => check(node.type === 'ThrowStatement' ? node.argument : undefined),
      // A rejection is an async function's throw: `Promise.reject(e)`, a promise's `reject(e)`.
      "CallExpression:matches([callee.name='reject'], [callee.property.name='reject'])": (/** @type {EsNode} */ node) =>
        check(node.type === 'CallExpression' && node.arguments[0]?.type !== 'SpreadElement' ? node.arguments[0] : undefined),
    }
  },
}

const house = {
  rules: {
    sql: selectorRule('SQL text lives in *.queries.ts files', [
      { selector: `Literal[value=${SQL}]`, message: SQL_MESSAGE },
      { selector: `TemplateLiteral > TemplateElement:first-child[value.raw=${SQL}]`, message: SQL_MESSAGE },
      // A statement's first words, then an interpolation: `update ${table} set …`, `truncate "${table}"`.
      { selector: `TemplateLiteral[expressions.length>0] > TemplateElement:first-child[value.raw=${SQL_VERB}]`, message: SQL_MESSAGE },
      // SQL put together from pieces: `['update event', 'set …'].join(' ')`, `'select' + columns`.
      {
        selector: `CallExpression[callee.property.name=/^(join|concat)$/] > MemberExpression.callee > ArrayExpression.object > Literal:first-child[value=${SQL_PIECE}]`,
        message: SQL_MESSAGE,
      },
      {
        selector: `CallExpression[callee.property.name=/^(join|concat)$/] > MemberExpression.callee > ArrayExpression.object > TemplateLiteral:first-child > TemplateElement:first-child[value.raw=${SQL_PIECE}]`,
        message: SQL_MESSAGE,
      },
      { selector: `BinaryExpression[operator='+'] > Literal.left[value=${SQL_PIECE}]`, message: SQL_MESSAGE },
      {
        selector: `BinaryExpression[operator='+'] > TemplateLiteral.left > TemplateElement:first-child[value.raw=${SQL_PIECE}]`,
        message: SQL_MESSAGE,
      },
      {
        selector: `CallExpression[callee.property.name='concat'] > MemberExpression.callee > Literal.object[value=${SQL_PIECE}]`,
        message: SQL_MESSAGE,
      },
    ]),
    database: selectorRule('The database is reached through the entity manager; its drivers only in the listed exceptions', [
      // Static, re-exported, dynamic (`await import('pg')`) and required: every way a module is loaded.
      { selector: `ImportDeclaration[source.value=${DRIVER}]`, message: DRIVER_MESSAGE },
      { selector: `ExportNamedDeclaration[source.value=${DRIVER}]`, message: DRIVER_MESSAGE },
      { selector: `ExportAllDeclaration[source.value=${DRIVER}]`, message: DRIVER_MESSAGE },
      { selector: `ImportExpression[source.value=${DRIVER}]`, message: DRIVER_MESSAGE },
      { selector: `ImportExpression > TemplateLiteral.source > TemplateElement:first-child[value.raw=${DRIVER}]`, message: DRIVER_MESSAGE },
      { selector: `CallExpression[callee.name='require'][arguments.0.value=${DRIVER}]`, message: DRIVER_MESSAGE },
      { selector: `TSExternalModuleReference[expression.value=${DRIVER}]`, message: DRIVER_MESSAGE },
      { selector: 'MemberExpression[property.name=/^(getConnection|getKnex)$/]', message: DRIVER_MESSAGE },
      { selector: 'MemberExpression[property.value=/^(getConnection|getKnex)$/]', message: DRIVER_MESSAGE },
      { selector: 'ObjectPattern > Property[key.name=/^(getConnection|getKnex)$/]', message: DRIVER_MESSAGE },
    ]),
    'error-body': errorBodyRule,
    'orpc-errors': selectorRule('Errors are made in errors.ts, with the domain code', [
      // A value import (under any name), a re-export, a namespace's member: a type import is allowed.
      {
        selector: "ImportDeclaration[importKind='value'] > ImportSpecifier[imported.name='ORPCError'][importKind='value']",
        message: ORPC_ERROR_MESSAGE,
      },
      { selector: "ExportSpecifier[local.name='ORPCError']", message: ORPC_ERROR_MESSAGE },
      { selector: "ObjectPattern > Property[key.name='ORPCError']", message: ORPC_ERROR_MESSAGE },
      { selector: "MemberExpression[property.name='ORPCError']", message: ORPC_ERROR_MESSAGE },
      // oRPC's error constructors, handed to handlers and middlewares (`({ errors }) => errors.NOT_FOUND()`).
      { selector: ":function > ObjectPattern.params > Property[key.name='errors']", message: ORPC_ERROR_MESSAGE },
      { selector: "MemberExpression[object.property.name='errors'][property.name=/^[A-Z][A-Z_]*$/]", message: ORPC_ERROR_MESSAGE },
    ]),
    'domain-errors': domainErrorsRule,
    mocks: selectorRule('Test files mock nothing: they share their modules', [
      { selector: 'MemberExpression[object.name="vi"][property.name=/^(mock|doMock|stubGlobal|stubEnv)$/]', message: MOCK_MESSAGE },
      { selector: 'MemberExpression[object.name="vi"][property.value=/^(mock|doMock|stubGlobal|stubEnv)$/]', message: MOCK_MESSAGE },
      {
        selector: 'MemberExpression[object.property.name="vi"][property.name=/^(mock|doMock|stubGlobal|stubEnv)$/]',
        message: MOCK_MESSAGE,
      },
      // `vi` under another name (`import { vi as v }`, `const v = vi`, `const { mock } = vi`, `import * as vitest`).
      { selector: "ImportSpecifier[imported.name='vi'][local.name!='vi']", message: VI_MESSAGE },
      { selector: "ImportDeclaration[source.value='vitest'] > ImportNamespaceSpecifier", message: VI_MESSAGE },
      { selector: "VariableDeclarator[init.type='Identifier'][init.name='vi']", message: VI_MESSAGE },
      { selector: "AssignmentExpression[right.type='Identifier'][right.name='vi']", message: VI_MESSAGE },
    ]),
  },
}

export const houseRules = [
  { plugins: { house } },
  {
    // Test files share their worker's modules (vitest.config.ts, isolate: false): a mocked module
    // or a stubbed global would reach the next file.
    files: ['test/**/*.ts', 'server/src/**/*.test.ts', 'sdk/src/**/*.test.ts'],
    rules: { 'house/mocks': 'error' },
  },
  {
    files: ['server/src/**/*.ts'],
    rules: { 'house/sql': 'error', 'house/database': 'error', 'house/error-body': 'error', 'house/orpc-errors': 'error' },
  },
  {
    // Domain code: every file of server/src/modules but the entities and the tests, not only the
    // *.service.ts files. Routers, Express routes, middlewares, scopes and roles (booth-scope.ts,
    // roles.ts), queries and the modules' helpers all decide answers, and the suffixes do not say
    // which file does (a refusal lived in booth.router.ts as a raw ORPCError). Entities are the
    // ORM's row definitions: a throw there is a broken row. Tests assert; they refuse nothing.
    // A module's infrastructure (a storage adapter, a transport) throws too: what it throws is a
    // fault, and says so (Fault), so that every throw of a domain file is a refusal or a fault.
    files: ['server/src/modules/**/*.ts'],
    ignores: ['**/*.entity.ts', '**/*.test.ts'],
    rules: { 'house/domain-errors': 'error' },
  },
  {
    // SQL's own files: the queries and the migrations; and the entities, whose index and check
    // expressions are the DDL the ORM compares with the migrations' schema.
    files: ['server/src/**/*.queries.ts', 'server/src/db/migrations/*.ts', 'server/src/**/*.entity.ts'],
    rules: { 'house/sql': 'off' },
  },
  {
    // The database's exceptions (docs/architecture.md): the ORM's setup, Better Auth's pool, and the
    // pool's counts for the metrics.
    files: ['server/src/db/orm.ts', 'server/src/modules/staff/auth.ts', 'server/src/metrics.ts'],
    rules: { 'house/database': 'off' },
  },
  {
    // Clients of their own, outside the ORM, with their own statements: LISTEN's connection, and the
    // embedded cluster's admin client (it creates databases before any ORM exists). Tests beside the
    // code may write SQL as their fixtures.
    files: ['server/src/db/notifications.ts', 'server/src/db/embedded-postgres.ts', 'server/src/**/*.test.ts'],
    rules: { 'house/database': 'off', 'house/sql': 'off' },
  },
  {
    // The one error writer, and oRPC's body encoder.
    files: ['server/src/http/answers.ts', 'server/src/errors.ts'],
    rules: { 'house/error-body': 'off' },
  },
  {
    // Where errors are made: AppError, Fault, and the schema failure oRPC's encoder reads.
    files: ['server/src/errors.ts'],
    rules: { 'house/orpc-errors': 'off' },
  },
  {
    // Settings depend on nothing in the modules: they read their defaults from here.
    // (A type names a module's settings and runs nothing: allowed.)
    files: ['server/src/config.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
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

/*
 * Raw SQL runs through `run(em, QUERY, params)` (server/src/db/query.ts), which checks its rows against
 * the query's schema: an `execute` with arguments (an entity manager's, a transaction's, a fork's)
 * anywhere else in the server would read rows nothing checks. A query builder's `execute()` takes
 * none, and passes. Tests may run their fixtures' SQL as they like.
 */
const QUERY_ROWS_MESSAGE =
  'Run SQL with run(em, QUERY, params) from db/query.ts: a query(name, sql, rowSchema) of a *.queries.ts file, its rows checked (docs/architecture.md, "Raw queries\' rows are checked against their schema").'
house.rules['query-rows'] = selectorRule('Raw SQL runs through db/query.ts, its rows checked against the query’s schema', [
  { selector: "CallExpression[arguments.length>0] > MemberExpression.callee[property.name='execute']", message: QUERY_ROWS_MESSAGE },
  { selector: "CallExpression[arguments.length>0] > MemberExpression.callee[property.value='execute']", message: QUERY_ROWS_MESSAGE },
])
houseRules.push({
  files: ['server/src/**/*.ts'],
  ignores: ['server/src/db/query.ts', 'server/src/**/*.test.ts'],
  rules: { 'house/query-rows': 'error' },
})
