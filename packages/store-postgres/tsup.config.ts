import { defineConfig } from 'tsup';

export default defineConfig({
  // describe-database-url is its own entry so that a server can check its URL without loading pg.
  entry: ['src/index.ts', 'src/describe-database-url.ts', 'src/migrate-cli.ts'],
  format: ['esm'],
  dts: { entry: ['src/index.ts', 'src/describe-database-url.ts'] },
  sourcemap: true,
  clean: true,
  target: 'node20',
});
