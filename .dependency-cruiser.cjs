// The dependency rule (npm run lint, DESIGN.md "Layers"): data flows one way and nothing imports
// upward; the page imports the worker side's types only; engine code never reaches React,
// zustand or the page. Checked by dependency-cruiser over src/ (`npx depcruise src`).
//
// Layers, top to bottom. A module may import its own layer and any layer below; the leaves
// (world, metrics, util, config, the RL vocabulary rl/hyper.ts) import only leaves. Folders not named DESIGN.md's table are
// placed where their imports put them: explore is the explorer's page side, selftest runs in the
// main worker, export/pretrain sit beside the engines (they drive loops, the RL core and the
// model), eval between loops and rl, onnx and reference above model.
const LAYERS = [
  // the page: React components, zustand state, the explorer's page logic, the entry point
  ['^src/ui/', '^src/main\\.tsx$'],
  ['^src/state/', '^src/explore/'],
  // the lab's page side: connecting to workers, the run-worker pool, the lab they make
  ['^src/lab/page/'],
  // ══ worker boundary ══ protocol (types and constants), the bridge, the worker hosts, the run manager
  ['^src/lab/(?!page/)', '^src/selftest/'],
  ['^src/engines/', '^src/export/', '^src/pretrain/'],
  ['^src/loops/'],
  ['^src/eval/'],
  // the math both engines share; its vocabulary (hyper.ts) is a leaf the kernels and references name
  ['^src/rl/(?!hyper\\.ts$)'],
  ['^src/onnx/', '^src/reference/'],
  ['^src/model/'],
  ['^src/gpu/'],
];
const LEAVES = ['^src/world/', '^src/metrics/', '^src/util/', '^src/config/', '^src/rl/hyper\\.ts$'];
/** Node drivers: they may import any engine layer, never the page's React side. */
const DRIVERS = ['^src/cli/', '^src/bench/'];

/** The worker side, which the page may name in `import type` only. */
const WORKER_SIDE = ['^src/lab/worker/'];
const PAGE_SIDE = ['^src/ui/', '^src/state/', '^src/explore/', '^src/main\\.tsx$', '^src/lab/page/'];
const ENGINE = [...LAYERS.slice(3).flat(), ...LEAVES];

const upward = LAYERS.flatMap((layer, i) =>
  i === 0 ? [] : [{
    name: `no-upward-${i}`,
    comment: `${layer.join(', ')} imports a layer above it (DESIGN.md: nothing imports upward)`,
    severity: 'error',
    from: { path: layer },
    to: { path: LAYERS.slice(0, i).flat() },
  }],
);

module.exports = {
  forbidden: [
    ...upward,
    {
      name: 'leaves-stay-leaves',
      comment: 'world, metrics, util, config and the RL vocabulary are leaves: they import only each other',
      severity: 'error',
      from: { path: LEAVES },
      to: { path: '^src/', pathNot: LEAVES },
    },
    {
      name: 'page-imports-worker-types-only',
      comment: 'the page side names the worker side in `import type` only (the worker runs it; the page bundle must not)',
      severity: 'error',
      from: { path: PAGE_SIDE },
      to: { path: WORKER_SIDE, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'protocol-is-types-and-constants',
      comment: 'src/lab/protocol/ declares the contract; it imports neither side of the boundary',
      severity: 'error',
      from: { path: '^src/lab/protocol/' },
      to: { path: ['^src/lab/worker/', '^src/lab/page/'] },
    },
    {
      name: 'engine-not-page',
      comment: 'engine code (the lab API and everything below it) never imports the page',
      severity: 'error',
      from: { path: ENGINE, pathNot: '^src/lab/page/' },
      to: { path: PAGE_SIDE },
    },
    {
      name: 'engine-reaches-no-react',
      comment: 'engine code and the Node drivers never reach React, zustand or recharts, even through another module',
      severity: 'error',
      from: { path: [...ENGINE, ...DRIVERS], pathNot: '^src/lab/page/' },
      to: { path: '^node_modules/(react|react-dom|zustand|recharts)/', reachable: true },
    },
    {
      name: 'drivers-not-ui',
      comment: 'the CLI and the bench drive the engine without the page\'s components',
      severity: 'error',
      from: { path: DRIVERS },
      to: { path: ['^src/ui/', '^src/main\\.tsx$'] },
    },
  ],
  options: {
    includeOnly: ['^src/', '^node_modules/(react|react-dom|zustand|recharts)/'],
    doNotFollow: { path: 'node_modules' },
    // keep `import type` edges, marked type-only, so the page rule can tell them apart
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
