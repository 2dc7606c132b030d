// Preloaded (`node --expose-gc --import ./gc-on-signal.mjs <server bin>`) by profile-session-heap.mjs only:
// on SIGUSR2 the server runs two full collections and prints its memory on stderr, so that live memory can
// be told apart from garbage V8 has not collected yet. Never part of a served process.
process.on('SIGUSR2', () => {
  globalThis.gc();
  globalThis.gc();
  const usage = process.memoryUsage();
  process.stderr.write(`bench-gc ${JSON.stringify(usage)}\n`);
});
