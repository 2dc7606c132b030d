/**
 * A text of any length as one WAV: split at sentence boundaries into parts of at most 200 characters, the
 * parts synthesised at once within the key's limit (each one paid once, as `submit` pays), their WAVs
 * fetched and joined in order. The first part that fails stops the sending of the rest (the text can no
 * longer be joined, and each part costs credits); parts already admitted are followed to their end and
 * recorded before the failure is reported, so the same text again resumes them instead of paying again.
 */
import { concatWav } from '../audio/concat-wav.js';
import type { SpeechRequest } from '../contracts/speech-synthesis.js';
import type { MediaDownloader } from '../download/download-media.js';
import { ApiError } from '../errors/api-error.js';
import { ValidationError } from '../errors/polymodal-error.js';
import { type CallOptions, startCall, withinDeadline } from '../http/call-options.js';
import { isWav } from '../media/sniff-media-type.js';
import type { TextSynthesisProgress } from '../views/speech-job.js';
import type { SpeechClientDeps } from './speech-client-deps.js';
import { partBodies, type TextSpeechRequest } from './speech-request.js';
import { waitSubmitted } from './speech-tasks.js';
import { submitRequest } from './submit-speech.js';

export interface TextSynthesisPart {
  text: string;
  taskId: string;
  durationSeconds: number | undefined;
  resumed: boolean;
}

export interface TextSynthesis {
  /** One WAV file of all parts, in order. */
  wav: Buffer;
  parts: TextSynthesisPart[];
  durationSeconds: number | undefined;
}

/**
 * `timeout` bounds the whole synthesis: no part is sent after it and the call answers then; parts already
 * sent finish and are recorded, so the same text again resumes them. `maxRetries` applies to each part as in
 * `submit`.
 */
export interface TextSynthesisOptions extends CallOptions {
  /**
   * Stops the synthesis: parts not yet sent are never sent, and the call rejects at once with the reason.
   * Parts already sent finish on their own and are recorded, so the same text again resumes them.
   */
  signal?: AbortSignal;
  onProgress?: (progress: TextSynthesisProgress) => void;
  allowResubmit?: boolean;
  forceNew?: boolean;
}

/** One text's parts under way: their progress, and the stop that keeps unsent parts from being sent. */
interface TextBatch {
  options: TextSynthesisOptions;
  downloader: MediaDownloader;
  progress: TextSynthesisProgress;
  /** Parts waiting for a slot of the key. */
  queuedParts: Set<number>;
  report(): void;
  /** Aborted by the caller, or by the first part that fails. */
  stop: AbortController;
  /** The first part's failure, reported once every admitted part has ended. */
  failure: { error: unknown } | undefined;
}

interface SynthesizedPart {
  bytes: Buffer;
  part: TextSynthesisPart;
}

export function synthesizeText(
  deps: SpeechClientDeps,
  request: TextSpeechRequest,
  options: TextSynthesisOptions = {},
): Promise<TextSynthesis> {
  const call = startCall(options);
  return withinDeadline(call, 'The text could not be synthesised', (signal) =>
    synthesizeTextWithin(deps, request, { ...call, signal }),
  );
}

async function synthesizeTextWithin(
  deps: SpeechClientDeps,
  request: TextSpeechRequest,
  options: TextSynthesisOptions,
): Promise<TextSynthesis> {
  if (!deps.downloader)
    throw new TypeError('synthesizeText needs a media downloader (createPolymodal provides one).');
  // Every part is checked before the first one is sent.
  const bodies = partBodies(request);
  options.signal?.throwIfAborted();
  const batch = startBatch(options, deps.downloader, bodies.length);
  const onCallerAbort = () => batch.stop.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onCallerAbort, { once: true });
  const settled = Promise.allSettled(
    bodies.map((body, index) =>
      synthesizePart(deps, batch, body, index).catch((error: unknown) => {
        if (!batch.stop.signal.aborted) {
          batch.failure = { error };
          batch.stop.abort(error);
        }
        throw error;
      }),
    ),
  );
  try {
    // The caller's abort answers at once; parts already sent go on in the background to their end.
    const results = await Promise.race([settled, callerStopped(batch)]);
    // After a failure, parts already admitted are finished (and recorded) before it is reported, so a
    // rerun resumes them instead of paying again.
    if (batch.failure) throw batch.failure.error;
    return joinParts(results.map((item) => (item as PromiseFulfilledResult<SynthesizedPart>).value));
  } finally {
    options.signal?.removeEventListener('abort', onCallerAbort);
  }
}

function startBatch(options: TextSynthesisOptions, downloader: MediaDownloader, parts: number): TextBatch {
  const progress: TextSynthesisProgress = { parts, finished: 0, queued: 0, submitted: 0 };
  const queuedParts = new Set<number>();
  const report = () => options.onProgress?.({ ...progress, queued: queuedParts.size });
  report();
  return {
    options,
    downloader,
    progress,
    queuedParts,
    report,
    stop: new AbortController(),
    failure: undefined,
  };
}

/** Rejects with the caller's reason once the caller stopped the batch (never when a part's failure did). */
function callerStopped(batch: TextBatch): Promise<never> {
  const { signal } = batch.options;
  const stopped = new Promise<never>((_resolve, reject) => {
    const onStop = () => {
      if (signal?.aborted) reject(signal.reason);
    };
    if (batch.stop.signal.aborted) onStop();
    else batch.stop.signal.addEventListener('abort', onStop, { once: true });
  });
  stopped.catch(() => undefined);
  return stopped;
}

async function synthesizePart(
  deps: SpeechClientDeps,
  batch: TextBatch,
  body: SpeechRequest,
  index: number,
): Promise<SynthesizedPart> {
  const { options, progress, queuedParts, report } = batch;
  /** The part's submission; `again` when its recorded audio expired and it is paid again on purpose. */
  const send = (again: boolean) =>
    submitRequest(deps, body, {
      stopSending: batch.stop.signal,
      ...(options.allowResubmit ? { allowResubmit: true } : {}),
      ...(again
        ? { forceNew: true }
        : { maxRetries: options.maxRetries, ...(options.forceNew ? { forceNew: true } : {}) }),
      onQueued: () => {
        if (!queuedParts.has(index)) {
          queuedParts.add(index);
          report();
        }
      },
      onDequeued: () => {
        if (queuedParts.delete(index)) report();
      },
    });
  const submitted = await send(false);
  progress.submitted += 1;
  report();
  // An admitted part is followed to its end even once stopped: its slot is freed when it is seen ready,
  // and its outcome is recorded for a repeat to resume.
  let task = await waitSubmitted(deps.tasks, submitted, {});
  batch.stop.signal.throwIfAborted();
  let fetched: Awaited<ReturnType<MediaDownloader['fetchBytes']>>;
  try {
    fetched = await fetchAudio(batch, task.result?.url);
  } catch (error) {
    // A result recorded long ago may have expired; synthesise that part again.
    if (!(submitted.resumed && ApiError.isInstance(error) && (error.status === 404 || error.status === 410)))
      throw error;
    task = await waitSubmitted(deps.tasks, await send(true), {});
    batch.stop.signal.throwIfAborted();
    fetched = await fetchAudio(batch, task.result?.url);
  }
  if (!isWav(fetched.bytes)) {
    throw new ValidationError(`Part ${index + 1} of the speech is not a WAV file; cannot join the parts.`);
  }
  progress.finished += 1;
  queuedParts.delete(index);
  report();
  const durationSeconds = task.result?.metadata?.duration;
  return {
    bytes: fetched.bytes,
    part: { text: body.text, taskId: task.taskId, durationSeconds, resumed: submitted.resumed },
  };
}

function fetchAudio(batch: TextBatch, url: string | undefined) {
  return batch.downloader.fetchBytes({ url: url as string, kind: 'audio', signal: batch.stop.signal });
}

function joinParts(parts: SynthesizedPart[]): TextSynthesis {
  const durations = parts.map((item) => item.part.durationSeconds);
  return {
    wav: concatWav(parts.map((item) => item.bytes)),
    parts: parts.map((item) => item.part),
    durationSeconds: durations.every((value) => typeof value === 'number')
      ? (durations as number[]).reduce((sum, value) => sum + value, 0)
      : undefined,
  };
}
