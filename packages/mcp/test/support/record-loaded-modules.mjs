// Preloaded with `node --import` by lean-start.test.ts: every module file the ES module loader loads (the
// bins are ES modules and bundle their dependencies, so this is every file of code they run) is appended,
// one URL a line, to the file named by POLYMODAL_TEST_LOADED_MODULES.
import { register } from 'node:module';

register('./record-loaded-modules-hooks.mjs', import.meta.url, {
  data: { output: process.env.POLYMODAL_TEST_LOADED_MODULES },
});
