// Preloaded with `node --import` by first-platform-request.test.ts: when the process exits, the Node
// built-in modules it loaded (by import or require) are written, one name a line, to the file named by
// POLYMODAL_TEST_BUILTINS.
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  const names = process.moduleLoadList
    .filter((entry) => entry.startsWith('NativeModule '))
    .map((entry) => entry.slice('NativeModule '.length));
  writeFileSync(process.env.POLYMODAL_TEST_BUILTINS ?? '', `${names.join('\n')}\n`);
});
