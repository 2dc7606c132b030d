/**
 * Test harness of the meeting server: mcp-common's server harness (sandbox, temp dirs, secret-checked calls),
 * with what meetings need on top: recordings written into `media/`, the one allowed directory (so that the
 * rest of the root is outside it), the first user's id, and a server on another key.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { type Connection, type ServerHarness, startServerHarness } from '@polymodal/mcp-common/testing';
import {
  type MeetingScriptLine,
  type Sandbox,
  type SandboxConfig,
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

export interface Harness extends ServerHarness {
  /** The allowed directory, inside `root`. */
  mediaDir: string;
  outputDir: string;
  stateDir: string;
  /** The sandbox's first user, whose key the server uses unless told otherwise. */
  userId: string;
  /** Another server on the same sandbox and dirs, authenticated with `apiKey` (e.g. the second user's). */
  connectAs(apiKey: string): Promise<Connection>;
  writeRecording(
    name: string,
    options?: { script?: MeetingScriptLine[]; fail?: string; dir?: string },
  ): Promise<string>;
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
  const { apiKey, toolDeadlineSeconds, ...sandboxOptions } = options;
  const harness = await startServerHarness({
    ...sandboxOptions,
    createServer,
    name: 'mcp-meeting-',
    env: ({ root, sandbox }) => ({
      POLYMODAL_ALLOWED_DIRS: path.join(root, 'media'),
      ...(apiKey ? { POLYMODAL_API_KEY: apiKey(sandbox) } : {}),
      ...(toolDeadlineSeconds === undefined
        ? {}
        : { POLYMODAL_TOOL_DEADLINE_SECONDS: String(toolDeadlineSeconds) }),
    }),
  });
  const mediaDir = path.join(harness.root, 'media');
  await mkdir(mediaDir, { recursive: true });
  return {
    ...harness,
    mediaDir,
    outputDir: harness.env.POLYMODAL_OUTPUT_DIR as string,
    stateDir: harness.env.POLYMODAL_STATE_DIR as string,
    userId: harness.sandbox.users[0]?.id as string,
    connectAs: (key) => harness.connect({ POLYMODAL_API_KEY: key }),
    async writeRecording(name, recording = {}) {
      const file = path.join(recording.dir ?? mediaDir, name);
      await mkdir(path.dirname(file), { recursive: true });
      await writeMeetingRecording(file, {
        script: recording.script ?? SHORT_SCRIPT,
        ...(recording.fail ? { fail: recording.fail } : {}),
      });
      return file;
    },
  };
}

/** Sum of the sandbox's request counters whose route starts with `prefix` (e.g. "PATCH "). */
export function requestsMatching(sandbox: Sandbox, prefix: string): number {
  return Object.entries(sandbox.control.counters().requests)
    .filter(([route]) => route.startsWith(prefix))
    .reduce((sum, [, count]) => sum + count, 0);
}
