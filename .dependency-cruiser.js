/**
 * The module graph's rules (docs/architecture.md, "Modules"), checked by `pnpm lint` and shown failing
 * in test/lint/module-graph.test.ts:
 * - no cycle between modules (server/src/modules/<name>);
 * - a module is entered by its front door (`index.ts`) from anywhere outside it: its other files are its own.
 * Tests may reach into a module (they test its parts); the rules are for server/src.
 */
export default {
  forbidden: [
    {
      name: 'no-module-cycle',
      comment: 'Modules form layers: one that imports another is never imported by it, directly or through others.',
      severity: 'error',
      scope: 'folder',
      // Folder-scoped rules match folder names: `server/src/modules/events`.
      from: { path: '^server/src/modules/[^/]+$' },
      to: { path: '^server/src/modules/[^/]+$', circular: true },
    },
    {
      name: 'front-door',
      comment: "Another module's parts are reached through its index.ts only.",
      severity: 'error',
      from: { path: '^server/src/(?!modules/)|^server/src/modules/([^/]+)/' },
      to: {
        path: '^server/src/modules/[^/]+/',
        pathNot: ['^server/src/modules/$1/', '^server/src/modules/[^/]+/index\\.[jt]s$'],
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
}
