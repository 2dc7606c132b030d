/**
 * Test harness: a real sandbox on loopback, the meeting server built against it with temp state, allowed
 * and output dirs, and an SDK client over InMemoryTransport. Every result is checked for the API key.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  type MeetingScriptLine,
  type Sandbox,
  type SandboxConfig,
  startSandbox,
  writeMeetingRecording,
} from '@polymodal/sandbox';
import { expect } from 'vitest';
import { createServer } from '../src/server.js';

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

export interface ToolResult {
  isError: boolean;
  text: string;
  structured: Record<string, unknown>;
  raw: CallToolResult;
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
  const { instance, client, call } = await connect(env, secrets);

  return {
    sandbox,
    client,
    root,
    mediaDir,
    outputDir,
    stateDir,
    env,
    userId,
    call,
    async connectAs(apiKey) {
      const other = await connect({ ...env, POLYMODAL_API_KEY: apiKey }, [...secrets, apiKey]);
      return {
        call: other.call,
        async close() {
          await other.client.close();
          await other.instance.cleanup();
        },
      };
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
      await client.close();
      await instance.cleanup();
      await sandbox.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

async function connect(env: NodeJS.ProcessEnv, secrets: string[]) {
  const instance = createServer({ env });
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await instance.server.connect(serverTransport);
  await client.connect(clientTransport);
  const call: Harness['call'] = async (name, args = {}, requestOptions) => {
    const raw = (await client.callTool(
      { name, arguments: args },
      undefined,
      requestOptions,
    )) as CallToolResult;
    const text = raw.content
      .filter((item): item is { type: 'text'; text: string } => item.type === 'text')
      .map((item) => item.text)
      .join('\n');
    // The key must never reach a result, whatever the tool and outcome.
    const serialized = JSON.stringify(raw);
    for (const secret of secrets) expect(serialized).not.toContain(secret);
    return {
      isError: raw.isError === true,
      text,
      structured: (raw.structuredContent ?? {}) as Record<string, unknown>,
      raw,
    };
  };
  return { instance, client, call };
}

/** Sum of the sandbox's request counters whose route starts with `prefix` (e.g. "PATCH "). */
export function requestsMatching(sandbox: Sandbox, prefix: string): number {
  return Object.entries(sandbox.control.counters().requests)
    .filter(([route]) => route.startsWith(prefix))
    .reduce((sum, [, count]) => sum + count, 0);
}
