/**
 * A text of any length as a job of the job ledger. One synthesis is made of N platform tasks (parts, each a
 * `speech-synthesis` entry of its own, which is what makes a part paid once); the synthesis itself is a
 * `speech-text` entry, started through the job engine like every paid job, whose id is its handle. Its
 * request names its parts (their entries' fingerprints) and holds what it takes to run it again: the speech
 * request and the output file name. Its status is RUNNING while any process works on it, then SUCCESS
 * (with the saved file), FAILURE, CANCELLED or ERROR.
 *
 * So a handle is good in any process on the ledger, and after a restart: a running synthesis that this
 * process does not run (its process died, or another replica runs it) is run here, and its parts join what
 * is recorded — a part with a task is resumed, a part another process is sending is waited for, and only a
 * part nobody sent is sent. The runs of this process (text-synthesis-runs.ts) are a cache with live progress.
 */
import { SPEECH_SYNTHESIS_SERVICE, SPEECH_TEXT_SERVICE } from '../constants/service-table.js';
import { fingerprint } from '../ledger/fingerprint.js';
import { TEXT_SYNTHESIS_STATUS } from '../views/speech-job.js';
import type { SpeechClientDeps } from './speech-client-deps.js';
import { type TextSpeechRequest, textParts, validateSpeechRequest } from './speech-request.js';
import { synthesizeText } from './synthesize-text.js';
import {
  recordedRequest,
  savedSpeechText,
  settledPatch,
  stoppedSpeechText,
} from './text-synthesis-record.js';
import type { SpeechTextJob } from './text-synthesis-runs.js';

export interface SpeechTextJobOptions {
  /** The saved WAV's name in the output directory; default `<id>.wav`. */
  fileName?: string | undefined;
  /** Send a part again although an identical earlier request was cut off and may have created its task. */
  allowResubmit?: boolean | undefined;
  /** Ends the wait for the job's record (the work itself is followed with `SpeechTextJob.follow`). */
  signal?: AbortSignal | undefined;
}

/** What a synthesis is: the request (its identity) and where its audio is saved. */
interface SpeechTextSpec {
  id: string;
  fingerprint: string;
  speech: TextSpeechRequest;
  fileName: string;
}

const RUNNING = TEXT_SYNTHESIS_STATUS.running;

/** The handle of a synthesis: `speech_` and the start of its request's fingerprint. */
export function speechTextId(requestFingerprint: string): string {
  return `speech_${requestFingerprint.slice(0, 20)}`;
}

/**
 * Starts the synthesis, or joins it: a run of this process, a saved result, or a recorded synthesis that is
 * run again here (its parts resumed from the ledger). Every part is checked, and the job recorded, before
 * any part is sent.
 */
export async function startSpeechText(
  deps: SpeechClientDeps,
  request: TextSpeechRequest,
  options: SpeechTextJobOptions = {},
): Promise<SpeechTextJob> {
  // Every rule but the text's length (the text is split) is checked before any job exists.
  validateSpeechRequest({ ...request, text: request.text.slice(0, 1) });
  const identity = fingerprint({ request });
  const id = speechTextId(identity);
  const spec: SpeechTextSpec = {
    id,
    fingerprint: identity,
    speech: request,
    fileName: options.fileName ?? `${id}.wav`,
  };
  const cached = deps.textRuns.get(id);
  if (cached && (cached.state === 'running' || cached.state === 'done')) return cached;
  const parts = textParts(request);
  const started = await deps.engine.start({
    service: SPEECH_TEXT_SERVICE,
    fingerprint: identity,
    title: request.text.slice(0, 80),
    request: {
      speech: { ...request },
      fileName: spec.fileName,
      parts: parts.map((part) => ({ service: SPEECH_SYNTHESIS_SERVICE, fingerprint: part.fingerprint })),
    },
    ...(options.signal ? { signal: options.signal } : {}),
    // Recording the synthesis sends nothing: an interrupted record is simply written again.
    resendable: true,
    submit: async () => ({ id, status: RUNNING }),
  });
  if (started.resumed && started.status === TEXT_SYNTHESIS_STATUS.done) {
    const saved = await savedById(deps, id);
    if (saved) return saved;
  }
  // Anything else recorded (running elsewhere or abandoned by a dead process; failed, cancelled, errored
  // before) is run here; the parts already made are resumed, not paid again.
  return runSpeechText(deps, spec, started.status, options);
}

/**
 * The synthesis behind a handle: this process's run, or the ledger's record — answered as recorded when it
 * ended, resumed here when it did not (or when its saved file is gone). Undefined when nothing knows it.
 */
export async function retrieveSpeechText(
  deps: SpeechClientDeps,
  id: string,
): Promise<SpeechTextJob | undefined> {
  const cached = deps.textRuns.get(id);
  if (cached) return cached;
  const entry = await deps.engine.ledger?.findById(SPEECH_TEXT_SERVICE, id);
  const request = entry ? recordedRequest(entry) : undefined;
  if (!entry || !request) return undefined;
  if (entry.lastStatus === TEXT_SYNTHESIS_STATUS.done) {
    const saved = deps.files ? await savedSpeechText(deps.files, entry) : undefined;
    if (saved) return saved;
  }
  if (
    entry.lastStatus === TEXT_SYNTHESIS_STATUS.failed ||
    entry.lastStatus === TEXT_SYNTHESIS_STATUS.cancelled
  ) {
    return stoppedSpeechText(entry, id);
  }
  const spec = { id, fingerprint: entry.fingerprint, speech: request.speech, fileName: request.fileName };
  return runSpeechText(deps, spec, entry.lastStatus, {});
}

async function savedById(deps: SpeechClientDeps, id: string): Promise<SpeechTextJob | undefined> {
  const entry = await deps.engine.ledger?.findById(SPEECH_TEXT_SERVICE, id);
  return entry && deps.files ? savedSpeechText(deps.files, entry) : undefined;
}

/** Runs the synthesis in this process (or joins the run already here), recording how it ends. */
function runSpeechText(
  deps: SpeechClientDeps,
  spec: SpeechTextSpec,
  recordedStatus: string,
  options: SpeechTextJobOptions,
): SpeechTextJob {
  const { engine, files } = deps;
  if (!files) throw new TypeError('A speech-text job needs file access (createPolymodal provides it).');
  return deps.textRuns.start(
    spec.id,
    async (report, signal) => {
      // Shown as running to every other process (and to a list of jobs) while it runs again.
      if (recordedStatus !== RUNNING)
        await engine.record(SPEECH_TEXT_SERVICE, spec.id, { lastStatus: RUNNING });
      const result = await synthesizeText(deps, spec.speech, {
        onProgress: report,
        signal,
        ...(options.allowResubmit ? { allowResubmit: true } : {}),
      });
      const savedPath = await files.writeOutput(spec.fileName, result.wav);
      return {
        savedPath,
        sizeBytes: result.wav.length,
        durationSeconds: result.durationSeconds,
        parts: result.parts,
        wav: result.wav,
      };
    },
    (settled) => engine.record(SPEECH_TEXT_SERVICE, spec.id, settledPatch(settled)),
  );
}
