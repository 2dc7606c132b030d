#!/usr/bin/env node
// Duplicate-pay stress of the meeting server: 20 identical summarize_meeting calls (same recording,
// waitSeconds 0) fired at once, spread over 4 spawned server processes sharing one POLYMODAL_STATE_DIR,
// then the same 20 calls on 1 process. The sandbox (separate process, clock held so the job stays
// PENDING during the burst) counts what was paid for: the ideal is 1 upload and 1 job per scenario.
// The spec's 5 s interval between reads of a job is left as it is. Imported by run.mjs; run alone,
// `node duplicate-pay.mjs` prints its section of the report.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeMeetingRecording } from '@polymodal/sandbox';
import { MEETING_API, SHORT_SCRIPT, startMeetingServer } from './meeting-server.mjs';
import { startSandboxProcess, total } from './sandbox-process.mjs';

const CALLS = 20;
const SCENARIOS = [4, 1];

export async function measureDuplicatePay() {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'polymodal-bench-duplicate-pay-'));
  let sandbox;
  const servers = [];
  try {
    sandbox = await startSandboxProcess();
    const mediaDir = path.join(scratch, 'media');
    await mkdir(mediaDir);
    const recording = path.join(mediaDir, 'weekly-sync.wav');
    await writeMeetingRecording(recording, { script: SHORT_SCRIPT });
    const runs = [];
    for (const processes of SCENARIOS) {
      await sandbox.control.reset();
      await sandbox.control.holdClock();
      const before = await sandbox.control.counters();
      // A fresh state dir per scenario: with the previous one the calls would resume its recorded job.
      const stateDir = await mkdtemp(path.join(scratch, 'state-'));
      const env = {
        POLYMODAL_BASE_URL: sandbox.baseUrl,
        POLYMODAL_API_KEY: sandbox.env.POLYMODAL_API_KEY,
        POLYMODAL_STATE_DIR: stateDir,
        POLYMODAL_ALLOWED_DIRS: mediaDir,
        POLYMODAL_OUTPUT_DIR: path.join(scratch, 'out'),
      };
      const group = await Promise.all(
        Array.from({ length: processes }, async () => {
          const server = await startMeetingServer(env);
          servers.push(server);
          return server;
        }),
      );
      const started = performance.now();
      const callSeconds = [];
      const outcomes = await Promise.allSettled(
        Array.from({ length: CALLS }, async (_, index) => {
          const answer = await group[index % processes].call('summarize_meeting', {
            path: recording,
            waitSeconds: 0,
          });
          callSeconds.push((performance.now() - started) / 1000);
          return answer;
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      const after = await sandbox.control.counters();
      const reads = await sandbox.control.requests({ method: 'GET', path: `${MEETING_API}/jobs/[^/]+$` });
      const answered = outcomes.filter((outcome) => outcome.status === 'fulfilled' && !outcome.value.isError);
      const jobIds = new Set(answered.map((outcome) => outcome.value.structured.jobId).filter(Boolean));
      const failures = outcomes
        .filter((outcome) => outcome.status === 'rejected' || outcome.value.isError)
        .map((outcome) => (outcome.status === 'rejected' ? String(outcome.reason) : outcome.value.text));
      runs.push({
        processes,
        calls: CALLS,
        seconds,
        medianCallSeconds: callSeconds.sort((a, b) => a - b)[Math.floor(callSeconds.length / 2)] ?? 0,
        uploads: total(after.uploads) - total(before.uploads),
        jobs: total(after.jobsCreated) - total(before.jobsCreated),
        distinctJobIds: jobIds.size,
        withoutJobId: answered.length - answered.filter((outcome) => outcome.value.structured.jobId).length,
        failures,
        reads: reads.length,
        smallestReadGapMs: smallestGap(reads.map((entry) => entry.at)),
      });
      await Promise.all(group.map((server) => server.close()));
    }
    return { calls: CALLS, runs };
  } finally {
    await Promise.all(servers.map((server) => server.close()));
    await sandbox?.stop();
    await rm(scratch, { recursive: true, force: true });
  }
}

function smallestGap(times) {
  let smallest = null;
  for (let index = 1; index < times.length; index++) {
    const gap = times[index] - times[index - 1];
    if (smallest === null || gap < smallest) smallest = gap;
  }
  return smallest;
}

export function duplicatePayReport({ calls, runs }) {
  const failures = runs.flatMap((run) => run.failures.map((text) => `${run.processes} process(es): ${text}`));
  return `### Duplicate-pay stress: ${calls} identical \`summarize_meeting\` calls at once (sandbox in a separate process, clock held)

The same recording, the same options, \`waitSeconds: 0\`; the calls are spread round-robin over the server
processes, which share one \`POLYMODAL_STATE_DIR\` (a fresh one per scenario). The ideal is 1 upload and
1 job. The spec's 5 s between two reads of a job is kept, so the burst includes a first read of the job
per process; "smallest read gap" is between two reads of that job by any process (goal ≥ 5000 ms).

| Processes | Calls | Uploads | Jobs created | Distinct job ids answered | Answers without a job id | Tool errors | Reads of the job | Smallest read gap (ms) | Median call (s) | Wall time of the burst (s) | Uploads / ideal 1 | Jobs / ideal 1 |
|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
${runs
  .map(
    (run) =>
      `| ${run.processes} | ${run.calls} | ${run.uploads} | ${run.jobs} | ${run.distinctJobIds} | ${run.withoutJobId} | ${run.failures.length} | ${run.reads} | ${run.smallestReadGapMs ?? '–'} | ${run.medianCallSeconds.toFixed(2)} | ${run.seconds.toFixed(2)} | **${run.uploads.toFixed(2)}** | **${run.jobs.toFixed(2)}** |`,
  )
  .join('\n')}
${failures.length > 0 ? `\nTool errors:\n${failures.map((text) => `- ${text.replaceAll('\n', ' ')}`).join('\n')}\n` : ''}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${duplicatePayReport(await measureDuplicatePay())}\n`);
}
