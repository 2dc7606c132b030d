#!/usr/bin/env node
// Polls per meeting job versus the spec's minimum: a job followed to completion through the MCP tools as
// an agent would (summarize_meeting with waitSeconds 10, then get_meeting with waitSeconds 10 until
// done) on one spawned server, against a sandbox (separate process) at speed 5. The spec's 5 s between
// two reads of a job is scaled by 1/20 to 250 ms through the test-only POLYMODAL_POLL_INTERVAL_MS
// (honoured on loopback only) so that the run is short. The sandbox's request log gives every read of the
// job with its arrival time. Imported by run.mjs; run alone, `node polls-per-job.mjs` prints its section.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SAMPLE_MEETING_SCRIPT, writeMeetingRecording } from '@polymodal/sandbox';
import { MEETING_API, SHORT_SCRIPT, startMeetingServer } from './meeting-server.mjs';
import { startSandboxProcess } from './sandbox-process.mjs';

const SPEC_INTERVAL_MS = 5_000;
const INTERVAL_MS = SPEC_INTERVAL_MS / 20;
const SPEED = 5;
const WAIT_SECONDS = 10;
/** Bounds of one follow-up: tool calls and wall time. */
const MAX_TOOL_CALLS = 10;
const MAX_FOLLOW_MS = 90_000;

const JOBS = [
  { label: 'short (done within summarize_meeting)', file: 'short.wav', script: SHORT_SCRIPT },
  {
    label: 'longer (spans summarize_meeting and get_meeting)',
    file: 'longer.wav',
    script: [...SAMPLE_MEETING_SCRIPT, ...SAMPLE_MEETING_SCRIPT],
  },
];

/**
 * The job's processing time at `speed`, in ms: the sandbox's phases (nominal seconds at speed 1 for a
 * recording of `d` seconds, as in packages/sandbox/src/services/meeting/job-timeline.ts), each divided by
 * the speed and rounded. The run checks it against the reads: the last read but one saw the job running.
 */
function jobDurationMs(durationSeconds, noiseReduction, speed) {
  const d = durationSeconds;
  const nominal = [
    1.5,
    2 + 0.02 * d,
    ...(noiseReduction ? [3 + 0.05 * d] : []),
    5 + 0.15 * d,
    1,
    3 + 0.05 * d,
  ];
  nominal.push(4 + 0.03 * d);
  return nominal.reduce((sum, seconds) => sum + Math.max(1, Math.round((seconds * 1000) / speed)), 0);
}

export async function measurePollsPerJob() {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'polymodal-bench-polls-'));
  let sandbox;
  let server;
  try {
    sandbox = await startSandboxProcess(['--speed', String(SPEED)]);
    const mediaDir = path.join(scratch, 'media');
    await mkdir(mediaDir);
    server = await startMeetingServer({
      POLYMODAL_BASE_URL: sandbox.baseUrl,
      POLYMODAL_API_KEY: sandbox.env.POLYMODAL_API_KEY,
      POLYMODAL_STATE_DIR: path.join(scratch, 'state'),
      POLYMODAL_ALLOWED_DIRS: mediaDir,
      POLYMODAL_OUTPUT_DIR: path.join(scratch, 'out'),
      POLYMODAL_POLL_INTERVAL_MS: String(INTERVAL_MS),
    });
    const runs = [];
    for (const job of JOBS) {
      const recording = path.join(mediaDir, job.file);
      await writeMeetingRecording(recording, { script: job.script });
      runs.push({ label: job.label, ...(await follow(server, sandbox, recording)) });
    }
    return { intervalMs: INTERVAL_MS, specIntervalMs: SPEC_INTERVAL_MS, speed: SPEED, runs };
  } finally {
    await server?.close();
    await sandbox?.stop();
    await rm(scratch, { recursive: true, force: true });
  }
}

async function follow(server, sandbox, recording) {
  const started = performance.now();
  let answer = await server.call('summarize_meeting', { path: recording, waitSeconds: WAIT_SECONDS });
  let toolCalls = 1;
  const jobId = answer.structured.jobId;
  while (
    !answer.isError &&
    !answer.structured.done &&
    toolCalls < MAX_TOOL_CALLS &&
    performance.now() - started < MAX_FOLLOW_MS
  ) {
    answer = await server.call('get_meeting', { jobId, waitSeconds: WAIT_SECONDS });
    toolCalls++;
  }
  const seconds = (performance.now() - started) / 1000;
  if (answer.isError || !answer.structured.done || !jobId) {
    throw new Error(`the job was not followed to completion: ${answer.text}`);
  }
  const reads = await sandbox.control.requests({ method: 'GET', path: `${MEETING_API}/jobs/${jobId}$` });
  // Read after the log was taken, so it is not counted.
  const response = await fetch(`${sandbox.baseUrl}${MEETING_API}/jobs/${jobId}`, {
    headers: { 'x-api-key': sandbox.env.POLYMODAL_API_KEY },
  });
  const { job } = await response.json();
  const durationMs = jobDurationMs(job.durationSeconds, job.noiseReduction, SPEED);
  const completedAt = Date.parse(job.createdAt) + durationMs;
  const gaps = reads.slice(1).map((entry, index) => entry.at - reads[index].at);
  const lastRead = reads.at(-1);
  const beforeLast = reads.at(-2);
  return {
    status: job.status,
    recordingSeconds: job.durationSeconds,
    durationMs,
    toolCalls,
    seconds,
    reads: reads.length,
    minimum: Math.ceil(durationMs / INTERVAL_MS) + 1,
    smallestGapMs: gaps.length > 0 ? Math.min(...gaps) : null,
    largestGapMs: gaps.length > 0 ? Math.max(...gaps) : null,
    firstReadAfterCreationMs: reads[0].clockAt - Date.parse(job.createdAt),
    completionSeenAfterMs: lastRead.clockAt - completedAt,
    // The duration formula agrees with what the reads saw: the last read after completion, the one
    // before it while the job was running.
    durationConsistent: lastRead.clockAt >= completedAt && (!beforeLast || beforeLast.clockAt < completedAt),
  };
}

export function pollsPerJobReport({ intervalMs, specIntervalMs, speed, runs }) {
  const inconsistent = runs.filter((run) => !run.durationConsistent);
  return `### Reads per meeting job versus the spec minimum (sandbox in a separate process, speed ${speed})

One job at a time, followed through the MCP tools as an agent would: \`summarize_meeting\` with
\`waitSeconds: ${WAIT_SECONDS}\`, then \`get_meeting\` with \`waitSeconds: ${WAIT_SECONDS}\` until \`done\`. The interval between two
reads of a job is the spec's ${specIntervalMs / 1000} s scaled by 1/20 to **${intervalMs} ms** (test-only \`POLYMODAL_POLL_INTERVAL_MS\`,
honoured on loopback only) so the run is short; the sandbox runs jobs ${speed}× faster, so a job spans 4× more
intervals than it would on the platform. Reads are the GETs of the job in the sandbox's request log. The
minimum is one read per interval from creation until done: ⌈D / ${intervalMs} ms⌉ + 1 final read, D the job's
processing time on the sandbox.

| Job | Recording (s) | D (s) | Tool calls | Wall (s) | Reads | Minimum | Reads / minimum | Smallest gap (ms) | Largest gap (ms) | Interval (ms) | First read after creation (ms) | Completion seen after (ms) |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
${runs
  .map(
    (run) =>
      `| ${run.label} | ${run.recordingSeconds.toFixed(1)} | ${(run.durationMs / 1000).toFixed(2)} | ${run.toolCalls} | ${run.seconds.toFixed(1)} | ${run.reads} | ${run.minimum} | **${(run.reads / run.minimum).toFixed(2)}** | **${run.smallestGapMs ?? '–'}** | ${run.largestGapMs ?? '–'} | ${intervalMs} | ${run.firstReadAfterCreationMs} | ${run.completionSeenAfterMs} |`,
  )
  .join('\n')}

Goal: reads / minimum close to 1.00 and the smallest gap ≥ ${intervalMs} ms. "Completion seen after" is how long after the
job finished on the sandbox the read that saw it arrived (at most one interval when the cadence holds).
${inconsistent.length > 0 ? `\n**D does not match the reads** for ${inconsistent.map((run) => run.label).join(', ')}: the sandbox's timeline changed; update \`jobDurationMs\` in bench/polls-per-job.mjs.\n` : ''}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${pollsPerJobReport(await measurePollsPerJob())}\n`);
}
