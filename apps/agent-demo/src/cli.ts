#!/usr/bin/env node
/**
 * `pnpm demo`: runs the built-in scenario through the Polymodal MCP servers over stdio, on the embedded
 * sandbox unless POLYMODAL_BASE_URL and POLYMODAL_API_KEY point at the real platform.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SAMPLE_MEETING_SCRIPT, writeMeetingRecording } from '@polymodal/sandbox';
import { runMeetingScenario } from './meeting-scenario.js';
import { openPlatform } from './platform.js';
import { createConsoleReporter, createJsonReporter, type Reporter } from './reporter.js';
import { connectServer, serverBin } from './servers.js';

const HELP = `Usage: pnpm demo [-- --json]

Summarises the bundled sample meeting recording through the Polymodal meeting MCP server (spawned over
stdio), then exports the summary and transcripts into ./demo-output.

With no POLYMODAL_BASE_URL the demo starts the embedded sandbox (a local simulation of the platform: no key,
no network). With POLYMODAL_BASE_URL and POLYMODAL_API_KEY set it runs unchanged against that platform.

Options:
  --json     print a machine-readable trace instead of the narrated run
  --verbose  also show the servers' stderr logs
  --help     show this text`;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { json: { type: 'boolean' }, verbose: { type: 'boolean' }, help: { type: 'boolean' } },
    allowPositionals: true,
  });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const reporter: Reporter = values.json ? createJsonReporter() : createConsoleReporter();
  const outputDir = path.resolve(process.env.POLYMODAL_OUTPUT_DIR ?? 'demo-output');
  const mediaDir = path.join(outputDir, 'media');
  await mkdir(mediaDir, { recursive: true });

  const platform = await openPlatform(process.env);
  // The embedded sandbox is new on every run, so its job ids are too: keep its job ledger per run.
  const scratch = platform.embedded ? await mkdtemp(path.join(os.tmpdir(), 'polymodal-demo-')) : undefined;
  const stateDir = scratch ?? process.env.POLYMODAL_STATE_DIR ?? '';
  try {
    reporter.emit({ type: 'platform', baseUrl: platform.baseUrl, embedded: platform.embedded });
    const recordingPath = path.join(mediaDir, 'sample-meeting.wav');
    await writeMeetingRecording(recordingPath, { script: SAMPLE_MEETING_SCRIPT });

    const meeting = await connectServer({
      name: 'meeting',
      bin: serverBin('@polymodal/mcp-meeting', 'polymodal-mcp-meeting'),
      env: {
        POLYMODAL_BASE_URL: platform.baseUrl,
        POLYMODAL_API_KEY: platform.apiKey,
        POLYMODAL_ALLOWED_DIRS: mediaDir,
        POLYMODAL_OUTPUT_DIR: outputDir,
        ...(stateDir ? { POLYMODAL_STATE_DIR: stateDir } : {}),
      },
      onLog: values.verbose ? (line) => process.stderr.write(`[meeting] ${line}\n`) : undefined,
    });
    try {
      const result = await runMeetingScenario({ client: meeting.client, recordingPath, reporter });
      reporter.emit({ type: 'answer', text: result.answer });
      reporter.emit({ type: 'files', paths: [recordingPath, ...result.files] });
      return result.ok ? 0 : 1;
    } finally {
      await meeting.close();
    }
  } finally {
    reporter.finish();
    await platform.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
