// Layer check (`npm run layers`, part of `npm run check`): imports point only down the layer table in
// docs/architecture.md. Type-only imports count too: a layer that names another's types knows about it.
// Cycles are checked by `npm run cycles` (dpdm), which ignores type-only imports.
const OURS = '^(src|jobs|bin)/';

/** A rule: files matching `from` must not import files matching `to` (paths relative to the repo root). */
function forbid(name, comment, from, to) {
  return { name, comment, severity: 'error', from, to };
}

module.exports = {
  forbidden: [
    forbid(
      'shared-imports-nothing-of-ours',
      'src/shared is the bottom layer: it imports no other folder of ours.',
      { path: '^src/shared/' },
      { path: OURS, pathNot: '^src/shared/' },
    ),
    forbid(
      'config-imports-shared-and-crm-facts',
      'src/config may import only src/shared and the crm facts (the destination registry and port type, ' +
        'transform names).',
      { path: '^src/config/' },
      { path: OURS, pathNot: ['^src/(shared|config)/', '^src/crm/(destinations|destination-port|transforms)\\.ts$'] },
    ),
    forbid(
      'source-stays-below-crm-and-queue',
      'The Sales-Intelligence client knows no CRM, queue, run state, job, server or CLI.',
      { path: '^src/source/' },
      { path: '^(src/(crm|queue|runs|server|cli|emulators)/|jobs/|bin/)' },
    ),
    forbid(
      'crm-knows-no-bullmq',
      "CRM sinks are written without BullMQ: queues are src/queue/'s business.",
      { path: '^src/crm/' },
      { path: '(^|/)bullmq(/|$)' },
    ),
    forbid(
      'crm-stays-below-source-and-queue',
      'The CRM layer knows no source API, queue, run state, job, server or CLI.',
      { path: '^src/crm/' },
      { path: '^(src/(source|queue|runs|server|cli|emulators)/|jobs/|bin/)' },
    ),
    forbid(
      'emulators-import-only-shared',
      "The emulators stand in for remote services: they must not borrow the worker's code.",
      { path: '^src/emulators/' },
      { path: OURS, pathNot: '^src/(shared|emulators)/' },
    ),
    forbid(
      'server-imports-no-jobs',
      'The dashboard shows queues; it does not run sync logic.',
      { path: '^src/server/' },
      { path: '^(jobs/|src/cli/|bin/)' },
    ),
    forbid(
      'queue-and-runs-import-no-jobs-or-cli',
      'Queue wiring and run state are below the processors and the CLI.',
      { path: '^src/(queue|runs)/' },
      { path: '^(jobs/|src/(cli|server)/|bin/)' },
    ),
    forbid(
      'only-bin-imports-cli',
      'src/cli is the top: only bin/ (and the CLI itself) imports it.',
      { path: OURS, pathNot: '^(bin|src/cli)/' },
      { path: '^src/cli/' },
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|coverage)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
