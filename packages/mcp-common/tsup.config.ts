import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/host.ts', 'src/http.ts'],
  format: ['esm'],
  // Declarations come from `tsc -b` (the root's `build:types`), and tests' typecheck reuses them.
  dts: false,
  sourcemap: true,
  // Everything but the declarations, which tsc writes at the same time.
  clean: ['!**/*.d.ts', '!tsconfig.build.tsbuildinfo'],
  target: 'node20',
});
