/**
 * Two clients of one platform key share one speech governor: the built media bin over Streamable HTTP
 * (stateless, one context for the key), two SDK clients, one of each protocol generation (their requests
 * reach the same context either way), calling synthesize_speech at once with 14 parts in
 * all, against a sandbox whose key allows 3 unfinished tasks, a limit the server is not told. Counted at the
 * sandbox: one round of 429s at most (the first, which teaches the limit) and no error for either client. Two governors (one per client) would each send their own first round.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { access, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/client';
import { type Sandbox, startSandbox } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectHttp } from './support/raw-http.js';
import { GENERATIONS } from './support/server-harness.js';
import { speechSeenBySandbox, textOfParts } from './support/speech-load.js';

const BIN = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'mcp-media',
  'dist',
  'index.js',
);

describe('synthesize_speech from two HTTP clients of one key', () => {
  let sandbox: Sandbox;
  let root: string;
  let child: ChildProcess | undefined;
  const clients: Client[] = [];

  beforeAll(async () => {
    await access(BIN).catch(() => {
      throw new Error(`${BIN} is missing: build it first (pnpm --filter @polymodal/mcp-media... build)`);
    });
    sandbox = await startSandbox({
      speed: 100,
      config: { media: { speechSynthesis: { concurrentSessions: 3 } } },
    });
    root = await mkdtemp(path.join(os.tmpdir(), 'mcp-speech-governor-'));
    await mkdir(path.join(root, 'media'), { recursive: true });
  });
  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await sandbox?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('14 parts from two clients (2025-11-25 and 2026-07-28) at once, limit 3 unknown to the server: at most one 429 round, no errors', async () => {
    child = spawn(process.execPath, [BIN, '--http', '--port', '0'], {
      env: {
        PATH: process.env.PATH ?? '',
        POLYMODAL_BASE_URL: sandbox.url,
        POLYMODAL_API_KEY: sandbox.apiKey,
        POLYMODAL_STATE_DIR: path.join(root, 'state'),
        POLYMODAL_ALLOWED_DIRS: path.join(root, 'media'),
        POLYMODAL_OUTPUT_DIR: path.join(root, 'out'),
        POLYMODAL_POLL_INTERVAL_MS: '50',
        POLYMODAL_LOG_LEVEL: 'warning',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    await vi.waitFor(() => expect(stderr).toMatch(/endpoint at http:\/\/\S+\/mcp/), { timeout: 15_000 });
    const url = /endpoint at (http:\/\/\S+\/mcp)/.exec(stderr)?.[1] as string;
    for (const generation of GENERATIONS) {
      clients.push(await connectHttp(url, { generation, name: `${generation}-client` }));
    }

    const answers = await Promise.all(
      clients.map(async (client, index) => {
        let answer = await client.callTool(
          {
            name: 'synthesize_speech',
            arguments: { text: textOfParts(7, `client ${index + 1}`), waitSeconds: 45 },
          },
          { timeout: 60_000 },
        );
        // A call whose wait ran out hands back its job, followed to the end with get_speech (on a busy
        // machine 14 parts can take longer than one call may wait).
        let structured = answer.structuredContent as { done?: boolean; jobId?: string } | undefined;
        while (!answer.isError && structured?.done === false && structured.jobId) {
          answer = await client.callTool(
            { name: 'get_speech', arguments: { jobId: structured.jobId, waitSeconds: 45 } },
            { timeout: 60_000 },
          );
          structured = answer.structuredContent as typeof structured;
        }
        return answer;
      }),
    );
    for (const [index, answer] of answers.entries()) {
      expect(answer.isError, `${GENERATIONS[index]}: ${JSON.stringify(answer.content)}`).toBeFalsy();
      expect(answer.structuredContent, GENERATIONS[index]).toMatchObject({
        done: true,
        outcome: 'succeeded',
      });
    }
    const seen = speechSeenBySandbox(sandbox, sandbox.users[0]!.id);
    expect(seen.created).toBe(14);
    // The sandbox enforces the key's limit itself: every task over it is a 429, counted here. The first
    // round, sent before the limit was known, is the only one refused: at most one 429 (4 sent at first, 3
    // admitted). A governor per client would send a first round each: five refusals.
    expect(seen.refused).toBeLessThanOrEqual(1);
    expect(stderr).not.toContain(sandbox.apiKey);
    // Sized by the work: 14 parts 3 at a time, each round after the platform's Retry-After (at least 1 s of
    // wall time); a busy machine took longer than one call's 45 s.
  }, 180_000);
});
