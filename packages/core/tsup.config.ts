import { defineConfig } from 'tsup';

/** The root and each subpath export (package.json `exports`): one entry each, shared code in chunks. */
const ENTRIES = [
  'index',
  'contracts',
  'llm',
  'jobs',
  'ledger',
  'files',
  'audio',
  'net',
  'download',
  'http',
  'media',
  'streaming',
  'views',
  'client',
  'constants',
  'errors',
  'config',
];

export default defineConfig({
  entry: Object.fromEntries(ENTRIES.map((name) => [name, `src/${name}.ts`])),
  format: ['esm'],
  // Declarations come from `tsc -b` (the root's `build:types`), and tests' typecheck reuses them.
  dts: false,
  sourcemap: true,
  // Everything but the declarations, which tsc writes at the same time.
  clean: ['!**/*.d.ts', '!tsconfig.build.tsbuildinfo'],
  target: 'node20',
});
