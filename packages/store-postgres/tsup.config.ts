import { defineConfig } from 'tsup';

export default defineConfig({
  // describe-database-url is its own entry so that a server can check its URL without loading pg.
  entry: ['src/index.ts', 'src/describe-database-url.ts', 'src/migrate-cli.ts'],
  format: ['esm'],
  // Declarations come from `tsc -b` (the root's `build:types`), and tests' typecheck reuses them.
  dts: false,
  sourcemap: true,
  // Everything but the declarations, which tsc writes at the same time.
  clean: ['!**/*.d.ts', '!tsconfig.build.tsbuildinfo'],
  target: 'node20',
});
