#!/usr/bin/env node
// Completion latency (`completion/complete`), as a host asks while a person types: the combined server over
// Streamable HTTP (stateless), against the sandbox (separate process), from an SDK client of each protocol
// generation on loopback. Each completable kind is asked COMPLETIONS times in turn (a recording among 300
// files of a folder, a meeting job id among 500 in the ledger, a registered voice, a video model from the
// catalog, a language), alternated with the completion of a free-text argument, which has nothing to offer
// (the floor: the same request through the same transport and handler, without a source's work). Medians
// and p95 in ms, and each median over the floor's. Imported by run.mjs; run alone,
// `node completion.mjs` prints its section.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createJobLedger } from '@polymodal/core/ledger';
import { startHttpServer } from './http-server-process.mjs';
import { binOf, startSandboxProcess, total } from './sandbox-process.mjs';

const COMPLETIONS = Number(process.env.BENCH_COMPLETIONS ?? 200);
const RECORDINGS = 300;
const MEETING_JOBS = 500;
const VOICES = 20;
const TARGET_MEDIAN_MS = 50;

/** What is completed: the prompt, the argument and what the person has typed. */
const FLOOR = { prompt: 'check_thai_reading', argument: 'referenceText', value: 'ฉัน' };
const KINDS = [
  {
    label: 'recording path (folder of 300)',
    prompt: 'meeting_minutes',
    argument: 'recording',
    value: 'team/st',
  },
  { label: 'meeting job id (ledger of 500)', prompt: 'translate_meeting', argument: 'jobId', value: 'mtg-1' },
  { label: 'registered voice', prompt: 'speak_text', argument: 'voice', value: 'custom_voices/v1' },
  { label: 'video model (catalog)', prompt: 'make_video', argument: 'model', value: 'hub:' },
  { label: 'language (list)', prompt: 'translate_meeting', argument: 'targetLanguage', value: 'e' },
];

async function prepare(scratch) {
  const mediaDir = path.join(scratch, 'media');
  const team = path.join(mediaDir, 'team');
  await mkdir(team, { recursive: true });
  for (let index = 0; index < RECORDINGS; index++) {
    await writeFile(path.join(team, `standup-${String(index).padStart(3, '0')}.wav`), '');
  }
  const stateDir = path.join(scratch, 'state');
  const ledger = createJobLedger({ dir: path.join(stateDir, 'jobs') });
  const at = (index) => new Date(Date.UTC(2026, 0, 1) + index * 60_000).toISOString();
  for (let index = 0; index < MEETING_JOBS; index++) {
    await ledger.insert({
      service: 'meeting',
      fingerprint: `bench-meeting-${index}`,
      id: `mtg-${index}`,
      lastStatus: 'COMPLETED',
      createdAt: at(index),
    });
  }
  for (let index = 0; index < VOICES; index++) {
    await ledger.insert({
      service: 'custom-voice',
      fingerprint: `bench-voice-${index}`,
      id: `voice-${index}`,
      lastStatus: 'REGISTERED',
      createdAt: at(index),
      request: { voice: { clone_audio: `custom_voices/v${index}.wav` } },
    });
  }
  return { mediaDir, stateDir };
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

async function timeClient(url, generation) {
  const client =
    generation === '2026-07-28'
      ? new Client({ name: 'bench', version: '0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
      : new Client({ name: 'bench', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    const complete = async ({ prompt, argument, value }) => {
      const started = performance.now();
      const { completion } = await client.complete({
        ref: { type: 'ref/prompt', name: prompt },
        argument: { name: argument, value },
      });
      return { ms: performance.now() - started, values: completion.values.length };
    };
    const times = { floor: [], ...Object.fromEntries(KINDS.map((kind) => [kind.label, []])) };
    const offered = {};
    for (let round = 0; round < COMPLETIONS; round++) {
      for (const kind of KINDS) {
        times.floor.push((await complete(FLOOR)).ms);
        const { ms, values } = await complete(kind);
        times[kind.label].push(ms);
        offered[kind.label] = values;
      }
    }
    return { generation, times, offered };
  } finally {
    await client.close();
  }
}

export async function measureCompletion() {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'polymodal-bench-completion-'));
  let sandbox;
  let server;
  try {
    sandbox = await startSandboxProcess();
    const { mediaDir, stateDir } = await prepare(scratch);
    server = await startHttpServer(binOf('@polymodal/mcp', 'polymodal-mcp'), {
      POLYMODAL_BASE_URL: sandbox.baseUrl,
      POLYMODAL_API_KEY: sandbox.env.POLYMODAL_API_KEY,
      POLYMODAL_STATE_DIR: stateDir,
      POLYMODAL_ALLOWED_DIRS: mediaDir,
      POLYMODAL_OUTPUT_DIR: path.join(scratch, 'out'),
    });
    const runs = [];
    for (const generation of ['2025-11-25', '2026-07-28'])
      runs.push(await timeClient(server.url, generation));
    const counters = await sandbox.control.counters();
    return { runs, paid: total(counters.uploads) + total(counters.jobsCreated) };
  } finally {
    await server?.stop();
    await sandbox?.stop();
    await rm(scratch, { recursive: true, force: true });
  }
}

export function completionReport({ runs, paid }) {
  const rows = runs.flatMap(({ generation, times, offered }) => {
    const floor = percentile(times.floor, 50);
    return [
      `| ${generation} | free text, nothing to offer (floor) | 0 | ${floor.toFixed(2)} | ${percentile(times.floor, 95).toFixed(2)} | 1.0 |`,
      ...KINDS.map((kind) => {
        const median = percentile(times[kind.label], 50);
        return `| ${generation} | ${kind.label} | ${offered[kind.label]} | ${median.toFixed(2)} | ${percentile(times[kind.label], 95).toFixed(2)} | ${(median / floor).toFixed(1)} |`;
      }),
    ];
  });
  const worst = Math.max(
    ...runs.flatMap(({ times }) => KINDS.map((kind) => percentile(times[kind.label], 50))),
  );
  return `### Completion of prompt arguments (combined server over Streamable HTTP, stateless, loopback)

\`completion/complete\` from one SDK client per protocol generation, each kind ${COMPLETIONS} times, alternated with the
completion of a free-text argument, which has nothing to offer (the floor: the same request and handler without a
source's work). The folder holds ${RECORDINGS} recordings, the ledger ${MEETING_JOBS} meeting jobs and ${VOICES} voices; the catalog is
the sandbox's.

| Generation | Completed | Values | Median (ms) | p95 (ms) | Median / floor median |
|---|---|---:|---:|---:|---:|
${rows.join('\n')}

Slowest median: **${worst.toFixed(2)} ms** (target ≤ ${TARGET_MEDIAN_MS} ms). Uploads and jobs the sandbox counted during the section: ${paid}
(completion pays for nothing; the catalog is read once per process and kept 5 minutes).
`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(completionReport(await measureCompletion()));
}
