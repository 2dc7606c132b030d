/**
 * A speech synthesis as a job of the job ledger. A long text is one synthesis made of N platform tasks
 * (parts, each a `speech-synthesis` entry of its own, which is what makes a part paid once); the synthesis
 * itself is a `speech-text` entry, started through the job engine like every paid job, whose id is the
 * handle synthesize_speech gives out. Its request names its parts (their entries' fingerprints) and holds
 * what it takes to run it again: the speech request and the output file name. Its status is RUNNING while
 * any process works on it, then SUCCESS (with the saved file), FAILURE, CANCELLED or ERROR.
 *
 * So a handle is good in any process on the ledger, and after a restart: a running synthesis that this
 * process does not run (its process died, or another replica runs it) is run here, and its parts join
 * what is recorded — a part with a task is resumed, a part another process is sending is waited for, and
 * only a part nobody sent is sent. The in-process runs (speech-jobs.ts) are a cache with live progress.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { SpeechRequest, TextSynthesisProgress } from '@polymodal/core';
import { SPEECH_SYNTHESIS_SERVICE, SPEECH_TEXT_SERVICE } from '@polymodal/core/constants';
import { JobFailedError } from '@polymodal/core/errors';
import { openVerifiedFile } from '@polymodal/core/files';
import type { LedgerEntry, LedgerPatch } from '@polymodal/core/ledger';
import { TEXT_SYNTHESIS_STATUS } from '@polymodal/core/views';
import { z } from 'zod';
import type { MediaToolDeps } from './media-tool-deps.js';
import { finishedSpeechJob, type SpeechJob, type SpeechJobRecorder } from './speech-jobs.js';

/** What a synthesis is: the request (its identity) and where its audio is saved. */
export interface SpeechSynthesisSpec {
  /** The handle: `speech_` and the start of the fingerprint. */
  id: string;
  fingerprint: string;
  speech: SpeechRequest;
  fileName: string;
}

export interface RunOptions {
  allowResubmit?: boolean | undefined;
  signal?: AbortSignal | undefined;
}

const RUNNING = TEXT_SYNTHESIS_STATUS.running;
const STATUS_OF = TEXT_SYNTHESIS_STATUS;
/** Audio read back from a saved synthesis only up to this size (inlining allows no more). */
const MAX_READ_BACK_BYTES = 1024 * 1024;

/** The identity of a synthesis: its request. The handle is derived from it, as it always was. */
export function speechSynthesisId(fingerprint: string): string {
  return `speech_${fingerprint.slice(0, 20)}`;
}

const progressSchema = z.object({
  parts: z.number(),
  finished: z.number(),
  queued: z.number(),
  submitted: z.number(),
});
const recordedRequestSchema = z.looseObject({
  speech: z.looseObject({ text: z.string() }),
  fileName: z.string(),
});
const recordedDataSchema = z.looseObject({
  progress: progressSchema.optional(),
  reason: z.string().optional(),
  savedPath: z.string().optional(),
  sizeBytes: z.number().optional(),
  durationSeconds: z.number().optional(),
  parts: z
    .array(
      z.object({
        text: z.string(),
        taskId: z.string(),
        durationSeconds: z.number().optional(),
        resumed: z.boolean(),
      }),
    )
    .optional(),
});

/**
 * Starts the synthesis, or joins it: a run of this process, a saved result, or a recorded synthesis that is
 * run again here (its parts resumed from the ledger). Recorded before any part is sent.
 */
export async function startSpeechSynthesis(
  deps: MediaToolDeps,
  spec: SpeechSynthesisSpec,
  options: RunOptions,
): Promise<SpeechJob> {
  const cached = deps.speechJobs.get(spec.id);
  if (cached && (cached.state === 'running' || cached.state === 'done')) return cached;
  const speech = deps.context.polymodal.speech;
  const parts = speech.textParts(spec.speech);
  const started = await deps.context.polymodal.engine.start({
    service: SPEECH_TEXT_SERVICE,
    fingerprint: spec.fingerprint,
    title: spec.speech.text.slice(0, 80),
    request: {
      speech: { ...spec.speech },
      fileName: spec.fileName,
      parts: parts.map((part) => ({ service: SPEECH_SYNTHESIS_SERVICE, fingerprint: part.fingerprint })),
    },
    ...(options.signal ? { signal: options.signal } : {}),
    // Recording the synthesis sends nothing: an interrupted record is simply written again.
    resendable: true,
    submit: async () => ({ id: spec.id, status: RUNNING }),
  });
  if (started.resumed && started.status === STATUS_OF.done) {
    const entry = await deps.context.ledger.findById(SPEECH_TEXT_SERVICE, spec.id);
    const saved = entry ? await savedSynthesis(deps, entry) : undefined;
    if (saved) return saved;
  }
  // Anything else recorded (running elsewhere or abandoned by a dead process; failed, cancelled, errored
  // before) is run here; the parts already made are resumed, not paid again.
  return runSpeechSynthesis(deps, spec, started.status, options);
}

/**
 * The synthesis behind a handle: this process's run, or the ledger's record — answered as recorded when it
 * ended, resumed here when it did not (or when its saved file is gone). Undefined when nothing knows it.
 */
export async function openSpeechSynthesis(deps: MediaToolDeps, id: string): Promise<SpeechJob | undefined> {
  const cached = deps.speechJobs.get(id);
  if (cached) return cached;
  const entry = await deps.context.ledger.findById(SPEECH_TEXT_SERVICE, id);
  const request = recordedRequestSchema.safeParse(entry?.request);
  if (!entry || !request.success) return undefined;
  if (entry.lastStatus === STATUS_OF.done) {
    const saved = await savedSynthesis(deps, entry);
    if (saved) return saved;
  }
  if (entry.lastStatus === STATUS_OF.failed || entry.lastStatus === STATUS_OF.cancelled) {
    const data = recordedDataSchema.safeParse(entry.data ?? {});
    return finishedSpeechJob({
      id,
      startedAt: Date.parse(entry.createdAt),
      state: entry.lastStatus === STATUS_OF.failed ? 'failed' : 'cancelled',
      progress: (data.success ? data.data.progress : undefined) ?? {
        parts: 0,
        finished: 0,
        queued: 0,
        submitted: 0,
      },
      reason: new Error(
        (data.success ? data.data.reason : undefined) ?? `the synthesis ended ${entry.lastStatus}`,
      ),
    });
  }
  const spec: SpeechSynthesisSpec = {
    id,
    fingerprint: entry.fingerprint,
    speech: request.data.speech as unknown as SpeechRequest,
    fileName: request.data.fileName,
  };
  return runSpeechSynthesis(deps, spec, entry.lastStatus, {});
}

/** Runs the synthesis in this process (or joins the run already here), recording how it ends. */
function runSpeechSynthesis(
  deps: MediaToolDeps,
  spec: SpeechSynthesisSpec,
  recordedStatus: string,
  options: RunOptions,
): SpeechJob {
  const { engine } = deps.context.polymodal;
  const speech = deps.context.polymodal.speech;
  const record: SpeechJobRecorder = (settled) =>
    engine.record(SPEECH_TEXT_SERVICE, spec.id, settledPatch(settled));
  const { job } = deps.speechJobs.start(
    spec.id,
    async (report, signal) => {
      // Shown as running to every other process (and list_jobs) while it runs again.
      if (recordedStatus !== RUNNING)
        await engine.record(SPEECH_TEXT_SERVICE, spec.id, { lastStatus: RUNNING });
      const result = await speech.synthesizeText(spec.speech, {
        onProgress: report,
        signal,
        ...(options.allowResubmit ? { allowResubmit: true } : {}),
      });
      const savedPath = await deps.context.files.writeOutput(spec.fileName, result.wav);
      return {
        savedPath,
        sizeBytes: result.wav.length,
        durationSeconds: result.durationSeconds,
        parts: result.parts,
        wav: result.wav,
      };
    },
    record,
  );
  return job;
}

/** The ledger fields of a synthesis that ended: its status, and what get_speech answers with later. */
function settledPatch(settled: Parameters<SpeechJobRecorder>[0]): LedgerPatch {
  if (settled.state === 'running') return {};
  const status = STATUS_OF[settled.state];
  if (settled.state === 'done' && settled.outcome) {
    const { outcome } = settled;
    return {
      lastStatus: status,
      data: {
        progress: settled.progress,
        savedPath: outcome.savedPath,
        sizeBytes: outcome.sizeBytes,
        ...(outcome.durationSeconds === undefined ? {} : { durationSeconds: outcome.durationSeconds }),
        parts: outcome.parts.map((part) => ({
          text: part.text,
          taskId: part.taskId,
          ...(part.durationSeconds === undefined ? {} : { durationSeconds: part.durationSeconds }),
          resumed: part.resumed,
        })),
      },
    };
  }
  return {
    lastStatus: status,
    data: { progress: settled.progress, reason: describeReason(settled.reason) },
  };
}

/** The reason as speech-result.ts words it for a job of this process. */
function describeReason(reason: unknown): string {
  if (JobFailedError.isInstance(reason)) {
    return `task ${reason.jobId} ended ${reason.status}: ${reason.errorMessage ?? 'no reason given'}`;
  }
  return reason instanceof Error ? reason.message : String(reason);
}

/**
 * A synthesis recorded as done whose file is still in this process's output directory, unchanged in size:
 * answered from the record without reading any part again. Undefined otherwise (it is then run again).
 */
async function savedSynthesis(deps: MediaToolDeps, entry: LedgerEntry): Promise<SpeechJob | undefined> {
  const data = recordedDataSchema.safeParse(entry.data ?? {});
  if (!data.success || !entry.id) return undefined;
  const { savedPath, sizeBytes, parts, progress, durationSeconds } = data.data;
  if (savedPath === undefined || sizeBytes === undefined || parts === undefined) return undefined;
  let file: string;
  let wav: Buffer | undefined;
  try {
    // Only a file directly in this process's output directory: a path recorded by another replica (a shared
    // ledger) or edited by hand names nothing else on this disk.
    file = path.join(await realpath(deps.context.files.outputDir), path.basename(savedPath));
    const opened = await openVerifiedFile(file);
    try {
      if (opened.size !== sizeBytes) return undefined;
      if (sizeBytes <= MAX_READ_BACK_BYTES) wav = await opened.handle.readFile();
    } finally {
      await opened.handle.close();
    }
  } catch {
    return undefined;
  }
  const count = parts.length;
  const done: TextSynthesisProgress = progress ?? {
    parts: count,
    finished: count,
    queued: 0,
    submitted: count,
  };
  return finishedSpeechJob({
    id: entry.id,
    startedAt: Date.parse(entry.createdAt),
    state: 'done',
    progress: done,
    outcome: {
      savedPath: file,
      sizeBytes,
      durationSeconds,
      // Every part was made before this call: reused, not paid again (what `resumed` tells a caller).
      parts: parts.map((part) => ({ ...part, durationSeconds: part.durationSeconds, resumed: true })),
      wav,
    },
  });
}
