#!/usr/bin/env node
// The bin of a server package (dist/index.js): turns on Node's on-disk code cache (Node 22.1 and later;
// `NODE_DISABLE_COMPILE_CACHE=1` turns it off), then loads the bundled server (dist/main.js). Hosts spawn
// every configured server at launch, and compiling the bundle is a large part of each start: with the
// cache, V8 compiles it once per version of the server instead of at every start. Static imports would be
// compiled before this line ran, hence the `import()`.
import module from 'node:module';

module.enableCompileCache?.();
await import('./main.js');
