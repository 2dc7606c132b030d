/**
 * Submitting one speech task, paid once: the request takes a slot of the key (queueing while it is full),
 * then starts through the job engine under the request's fingerprint, so that an identical request resumes
 * the recorded task or joins one in flight instead of paying again. The slot then follows the task until a
 * status read sees it ready. A caller's abort ends its waiting (for a slot, out a 429's pause), never a POST
 * already sent: that one completes and is recorded, so a repeat resumes its task.
 */
import { SPEECH_SYNTHESIS_SERVICE } from '../constants/service-table.js';
import type { SpeechRequest, SpeechTask } from '../contracts/speech-synthesis.js';
import { type CallOptions, startCall, waitTimeoutMs, withinDeadline } from '../http/call-options.js';
import { type Lease, postSpeechRequest } from './requeue-on-busy.js';
import type { SpeechClientDeps } from './speech-client-deps.js';
import { partFingerprint, validateSpeechRequest } from './speech-request.js';
import { type SpeechWaitOptions, type SubmittedSpeech, waitSubmitted } from './speech-tasks.js';
import { TTS_MIN_POLL_MS, TTS_WAIT_TIMEOUT_MS } from './speech-timing.js';

/**
 * `timeout` bounds the call: the wait for a free slot and the pauses after 429s; a POST in flight then goes on
 * and is recorded (the same call resumes it). `maxRetries` is how many times a POST declined with 429 is sent
 * again (default 5).
 */
export interface SpeechSubmitOptions extends CallOptions {
  /**
   * Ends the caller's waiting — for a free slot, or out a 429's pause — with its reason. A POST already sent
   * is not cut: it completes and its task is recorded (a repeat resumes it).
   */
  signal?: AbortSignal;
  /** Hears the 1-based queue position while the key's limit is reached. */
  onQueued?: (position: number) => void;
  /** Hears that the request got a slot of the key's limit after waiting for one (it goes out now). */
  onDequeued?: () => void;
  /** Send again although an identical earlier request was cut off and may already have created a task. */
  allowResubmit?: boolean;
  /** Start a new task even if this installation already synthesised the same request. */
  forceNew?: boolean;
}

/**
 * `signal` ends the caller's wait for the submission; `stopSending` ends the waits before a POST (a slot, a
 * 429's pause). A long text passes only `stopSending`, so that a POST in flight is still followed.
 */
export type SubmitRequestOptions = Omit<SpeechSubmitOptions, 'signal'> & {
  signal?: AbortSignal | undefined;
  stopSending?: AbortSignal | undefined;
};

/** A signal that aborts with whichever of `signals` aborts first (undefined ones are ignored). */
function eitherSignal(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const present = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  if (present.length <= 1) return present[0];
  return AbortSignal.any(present);
}

export function submitSpeech(
  deps: SpeechClientDeps,
  input: SpeechRequest,
  options: SpeechSubmitOptions = {},
): Promise<SubmittedSpeech> {
  const extra = startCall(options);
  return withinDeadline(extra, 'The speech request could not be sent', (signal) =>
    submitRequest(deps, input, { ...extra, signal, stopSending: signal }),
  );
}

/** submit + wait; a FAILURE → JobFailedError. */
export async function synthesizeSpeech(
  deps: SpeechClientDeps,
  request: SpeechRequest,
  options: SpeechSubmitOptions & SpeechWaitOptions = {},
): Promise<{ task: SpeechTask; resumed: boolean }> {
  const extra = startCall(options);
  const submitted = await submitSpeech(deps, request, extra);
  const task = await waitSubmitted(deps.tasks, submitted, {
    ...(extra.signal ? { signal: extra.signal } : {}),
    timeoutMs: waitTimeoutMs(extra, TTS_WAIT_TIMEOUT_MS),
    ...(extra.onProgress ? { onProgress: extra.onProgress } : {}),
  });
  return { task, resumed: submitted.resumed };
}

/** Waits for a slot of the key, telling the caller its queue position while it waits. */
async function takeLease(deps: SpeechClientDeps, extra: SubmitRequestOptions): Promise<Lease> {
  let waited = false;
  const slot = await deps.governor.acquire({
    signal: extra.stopSending,
    onPosition: (position) => {
      waited = true;
      extra.onQueued?.(position);
    },
  });
  if (waited) extra.onDequeued?.();
  return { slot, submitting: false };
}

export async function submitRequest(
  deps: SpeechClientDeps,
  input: SpeechRequest,
  extra: SubmitRequestOptions,
): Promise<SubmittedSpeech> {
  const { engine, slots } = deps;
  const body = validateSpeechRequest(input);
  const lease = await takeLease(deps, extra);
  let retryAfterMs: number | undefined;
  try {
    const started = await engine.start({
      service: SPEECH_SYNTHESIS_SERVICE,
      fingerprint: partFingerprint(body),
      title: body.text.slice(0, 80),
      request: { ...body },
      signal: extra.signal,
      reusable: (status) => status !== 'FAILURE',
      current: deps.tasks.currentStatus,
      forceNew: extra.forceNew,
      allowResubmit: extra.allowResubmit,
      resubmitOption: 'allowResubmit',
      submit: async ({ signal }) => {
        lease.submitting = true;
        try {
          const posted = await postSpeechRequest(deps, body, lease, {
            signal: eitherSignal(signal, extra.stopSending),
            onQueued: extra.onQueued,
            onDequeued: extra.onDequeued,
            maxBusyRounds: extra.maxRetries,
          });
          retryAfterMs = posted.retryAfterMs;
          slots.hold(posted.taskId, lease.slot);
          return { id: posted.taskId, status: 'PENDING' };
        } catch (error) {
          lease.slot.release();
          throw error;
        }
      },
    });
    if (!lease.submitting) {
      // Resumed, or joined an identical submission: this caller's slot follows the task unless it is over.
      if (started.status === 'SUCCESS' || started.status === 'FAILURE') lease.slot.release();
      else slots.hold(started.id, lease.slot);
    } else if (!started.resumed) {
      // The start response's Retry-After holds for every reader of the task, here and in other processes.
      await engine.noteRead(SPEECH_SYNTHESIS_SERVICE, started.id, {
        status: 'PENDING',
        retryAfterMs: deps.jitter(Math.max(retryAfterMs ?? 0, TTS_MIN_POLL_MS)),
      });
    }
    return { taskId: started.id, retryAfterMs, resumed: started.resumed };
  } catch (error) {
    // A submission that got as far as its POST owns the slot (it holds or releases it itself).
    if (!lease.submitting) lease.slot.release();
    throw error;
  }
}
