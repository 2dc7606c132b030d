import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// One vitest run for the whole workspace: each package is a project, so `pnpm test` reports everything at once.
// Test files mostly wait on loopback servers and child processes rather than compute, so they run two per
// core: vitest's default (one worker per core, minus one) left a 2-core machine running them one at a time.
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*'],
    maxWorkers: Math.max(2, availableParallelism() * 2),
  },
});
