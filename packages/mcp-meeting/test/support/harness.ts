/**
 * Test harness: a real sandbox on loopback, the meeting server built against it with temp state, allowed
 * and output dirs, and an SDK client over InMemoryTransport. Every result is checked for the API key.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Client, RequestOptions } from '@modelcontextprotocol/client';
import { connectInMemory, type ToolResult } from '@polymodal/mcp-common/testing';
import {
  type MeetingScriptLine,
  type Sandbox,
  type SandboxConfig,
  startSandbox,
  writeMeetingRecording,
} from '@polymodal/sandbox';
import { createServer } from '../../src/server.js';

export type { ToolResult } from '@polymodal/mcp-common/testing';

export const SHORT_SCRIPT: MeetingScriptLine[] = [
  { speaker: 'Alice', text: 'Welcome everyone, today we review the launch plan for the beta.' },
  { speaker: 'Bob', text: 'We decided to ship the beta on Friday after the final review.' },
  { speaker: 'Alice', text: 'I will prepare the release notes by Thursday.' },
  { speaker: 'Carol', text: 'Should we also invite the support team to the launch call?' },
  { speaker: 'Bob', text: "I'll draft the announcement for customers." },
];

export interface Harness {
  sandbox: Sandbox;
  client: Client;
  root: string;
  mediaDir: string;
  outputDir: string;
  stateDir: string;
  env: NodeJS.ProcessEnv;
  userId: string;
  call(name: string, args?: Record<string, unknown>, options?: RequestOptions): Promise<ToolResult>;
  /** Another server on the same sandbox and dirs, authenticated with `apiKey` (e.g. the second user's). */
  connectAs(apiKey: string): Promise<{ call: Harness['call']; close(): Promise<void> }>;
  writeRecording(
    name: string,
    options?: { script?: MeetingScriptLine[]; fail?: string; dir?: string },
  ): Promise<string>;
  close(): Promise<void>;
}

export async function startHarness(
  options: {
    speed?: number;
    pollIntervalMs?: number;
    apiKey?: (sandbox: Sandbox) => string;
    config?: SandboxConfig;
    /** 'held': the sandbox clock stands still (jobs do not progress) until released or advanced. */
    clock?: 'running' | 'held';
    /** Seconds one tool call may take (default 50, as in production). */
    toolDeadlineSeconds?: number;
  } = {},
): Promise<Harness> {
  const sandbox = await startSandbox({
    speed: options.speed ?? 100,
    ...(options.config ? { config: options.config } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const root = await mkdtemp(path.join(os.tmpdir(), 'mcp-meeting-'));
  const mediaDir = path.join(root, 'media');
  const outputDir = path.join(root, 'out');
  const stateDir = path.join(root, 'state');
  await mkdir(mediaDir, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    POLYMODAL_BASE_URL: sandbox.url,
    POLYMODAL_API_KEY: options.apiKey ? options.apiKey(sandbox) : sandbox.apiKey,
    POLYMODAL_STATE_DIR: stateDir,
    POLYMODAL_ALLOWED_DIRS: mediaDir,
    POLYMODAL_OUTPUT_DIR: outputDir,
    POLYMODAL_LOG_LEVEL: 'error',
    // Test-only: reads of a job this far apart instead of the spec's 5 s (honoured on loopback only).
    POLYMODAL_POLL_INTERVAL_MS: String(options.pollIntervalMs ?? 20),
    ...(options.toolDeadlineSeconds === undefined
      ? {}
      : { POLYMODAL_TOOL_DEADLINE_SECONDS: String(options.toolDeadlineSeconds) }),
  };
  const secrets = [sandbox.apiKey, sandbox.apiKey2, env.POLYMODAL_API_KEY as string];
  const userId = sandbox.users[0]?.id as string;
  const main = await connect(env, secrets);

  return {
    sandbox,
    client: main.client,
    root,
    mediaDir,
    outputDir,
    stateDir,
    env,
    userId,
    call: main.call,
    connectAs(apiKey) {
      return connect({ ...env, POLYMODAL_API_KEY: apiKey }, [...secrets, apiKey]);
    },
    async writeRecording(name, recording = {}) {
      const file = path.join(recording.dir ?? mediaDir, name);
      await mkdir(path.dirname(file), { recursive: true });
      await writeMeetingRecording(file, {
        script: recording.script ?? SHORT_SCRIPT,
        ...(recording.fail ? { fail: recording.fail } : {}),
      });
      return file;
    },
    async close() {
      await main.close();
      await sandbox.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

async function connect(env: NodeJS.ProcessEnv, secrets: string[]) {
  return connectInMemory(createServer({ env }), { secrets });
}

/** Sum of the sandbox's request counters whose route starts with `prefix` (e.g. "PATCH "). */
export function requestsMatching(sandbox: Sandbox, prefix: string): number {
  return Object.entries(sandbox.control.counters().requests)
    .filter(([route]) => route.startsWith(prefix))
    .reduce((sum, [, count]) => sum + count, 0);
}
