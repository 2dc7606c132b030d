import { defineConfig } from 'tsup';

/** The root and each subpath export (package.json `exports`): one entry each, shared code in chunks. */
const ENTRIES = [
  'index',
  'contracts',
  'clients',
  'jobs',
  'files',
  'audio',
  'net',
  'http',
  'media',
  'streaming',
  'telemetry',
];

export default defineConfig({
  entry: Object.fromEntries(ENTRIES.map((name) => [name, `src/${name}.ts`])),
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
});
