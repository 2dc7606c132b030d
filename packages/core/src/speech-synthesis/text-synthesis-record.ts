/**
 * A `speech-text` ledger entry, read and written: its request (the speech request, the output file name and
 * its parts' entries), the fields written when it stops (its status, and what a later caller answers with:
 * the saved file and its parts, or the reason), and a finished synthesis read back from them — answered
 * without reading any part again while its saved file is still there, unchanged in size.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { SpeechRequest } from '../contracts/speech-synthesis.js';
import { JobFailedError } from '../errors/polymodal-error.js';
import type { FileAccess } from '../files/create-file-access.js';
import { openVerifiedFile } from '../files/open-verified-file.js';
import type { LedgerEntry, LedgerPatch } from '../ledger/create-job-ledger.js';
import { TEXT_SYNTHESIS_STATUS, type TextSynthesisProgress } from '../views/speech-job.js';
import { finishedSpeechText, type SettledSpeechText, type SpeechTextJob } from './text-synthesis-runs.js';

/** Audio read back from a saved synthesis only up to this size (inlining allows no more). */
const MAX_READ_BACK_BYTES = 1024 * 1024;

const progressSchema = z.object({
  parts: z.number(),
  finished: z.number(),
  queued: z.number(),
  submitted: z.number(),
});

/** What a recorded synthesis runs again: its speech request (as it was checked) and its file name. */
const recordedRequestSchema = z.looseObject({
  speech: SpeechRequest.loose(),
  fileName: z.string(),
});
export type RecordedSpeechText = z.output<typeof recordedRequestSchema>;

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

/** The request of a recorded synthesis, or undefined when the entry holds none that can be run again. */
export function recordedRequest(entry: LedgerEntry): RecordedSpeechText | undefined {
  const request = recordedRequestSchema.safeParse(entry.request);
  return request.success ? request.data : undefined;
}

/** A synthesis that stopped without its audio (failed or cancelled), as its record tells it. */
export function stoppedSpeechText(entry: LedgerEntry, id: string): SpeechTextJob {
  const data = recordedDataSchema.safeParse(entry.data ?? {});
  return finishedSpeechText({
    id,
    startedAt: Date.parse(entry.createdAt),
    state: entry.lastStatus === TEXT_SYNTHESIS_STATUS.failed ? 'failed' : 'cancelled',
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

/** The ledger fields of a synthesis that ended: its status, and what a later caller answers with. */
export function settledPatch(settled: SettledSpeechText): LedgerPatch {
  if (settled.state === 'running') return {};
  const status = TEXT_SYNTHESIS_STATUS[settled.state];
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
  return { lastStatus: status, data: { progress: settled.progress, reason: describeReason(settled.reason) } };
}

/** The reason as `speechTextReason` words it for a job of this process. */
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
export async function savedSpeechText(
  files: FileAccess,
  entry: LedgerEntry,
): Promise<SpeechTextJob | undefined> {
  const data = recordedDataSchema.safeParse(entry.data ?? {});
  if (!data.success || !entry.id) return undefined;
  const { savedPath, sizeBytes, parts, progress, durationSeconds } = data.data;
  if (savedPath === undefined || sizeBytes === undefined || parts === undefined) return undefined;
  let file: string;
  let wav: Buffer | undefined;
  try {
    // Only a file directly in this process's output directory: a path recorded by another replica (a shared
    // ledger) or edited by hand names nothing else on this disk.
    file = path.join(await realpath(files.outputDir), path.basename(savedPath));
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
  return finishedSpeechText({
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
