import { defineConfig } from 'vitest/config';

// One vitest run for the whole workspace: each package is a project, so `pnpm test` reports everything at once.
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*'],
  },
});
