/**
 * A speech POST, and the 429 re-queue. A 429 admitted nothing, so the POST is sent again, up to 30 times by
 * default — but only once the request has given its slot back and queued, first in line, for a slot of the
 * limit the 429 taught (slots handed out before the limit was known are not taken back, and another client
 * may have filled the key), and once what is left of the Retry-After has passed. The POST itself takes no
 * signal: once sent it may admit the task, and cutting it would leave an uncertain, unresumable submission.
 */
import { TTS_API_PATH } from '../constants/service-table.js';
import { SpeechBusy, type SpeechRequest, SpeechStart } from '../contracts/speech-synthesis.js';
import { ApiError } from '../errors/api-error.js';
import { ConnectionError } from '../errors/polymodal-error.js';
import { parseRetryAfter } from '../http/parse-retry-after.js';
import type { Slot } from './concurrency-governor.js';
import type { SpeechPlatform } from './speech-client-deps.js';
import { TTS_MIN_POLL_MS } from './speech-timing.js';

/** 429 answers to one POST waited out before giving up. */
const MAX_BUSY_ROUNDS = 30;

/** The slot a submission holds; a 429 swaps it for a new one after waiting in the queue. */
export interface Lease {
  slot: Slot;
  /** Set once the submission itself (not a resume or a join) owns the slot. */
  submitting: boolean;
}

/** What the paid part of a submission needs besides the body. */
export interface PostOptions {
  /** Ends a 429's pause and the wait for a new slot; never the POST. */
  signal: AbortSignal | undefined;
  onQueued?: ((position: number) => void) | undefined;
  onDequeued?: (() => void) | undefined;
  /** POSTs declined with 429 sent again at most this often. */
  maxBusyRounds?: number | undefined;
}

/** Learns from a 429 (the key's limit, when it says) and returns how long to wait before trying again. */
export function busyPause(
  deps: Pick<SpeechPlatform, 'governor' | 'stats' | 'jitter'>,
  error: ApiError,
): number {
  deps.stats.busyAnswers += 1;
  const body = SpeechBusy.safeParse(error.body);
  if (body.success && body.data.concurrentLimit !== undefined) deps.governor.learn(body.data.concurrentLimit);
  const fromBody =
    body.success && body.data.retryAfterSeconds !== undefined
      ? body.data.retryAfterSeconds * 1000
      : undefined;
  return deps.jitter(Math.max(error.retryAfterMs ?? fromBody ?? TTS_MIN_POLL_MS, TTS_MIN_POLL_MS));
}

/** Sends the POST, and again after each 429 once the key has a slot for it and the Retry-After has passed. */
export async function postSpeechRequest(
  deps: SpeechPlatform,
  body: SpeechRequest,
  lease: Lease,
  extra: PostOptions,
): Promise<{ taskId: string; retryAfterMs: number | undefined }> {
  for (let round = 0; ; round++) {
    if (extra.signal?.aborted) {
      // Said as a transport failure that provably never arrived, so that the ledger records "not
      // created" and a repeat sends it without asking for allowResubmit.
      throw new ConnectionError(
        'The speech request was not sent: everyone waiting for it had stopped. Send it again when needed.',
        { requestMayHaveArrived: false, code: 'NOT_SENT' },
      );
    }
    try {
      deps.stats.posts += 1;
      const response = await deps.http.request({
        method: 'POST',
        path: `${TTS_API_PATH}/audio/speech`,
        json: body,
        schema: SpeechStart,
        idempotent: false,
        retryRateLimited: false,
      });
      return { taskId: response.data.taskId, retryAfterMs: parseRetryAfter(response.headers['retry-after']) };
    } catch (error) {
      if (
        !(ApiError.isInstance(error) && error.status === 429) ||
        round >= (extra.maxBusyRounds ?? MAX_BUSY_ROUNDS)
      )
        throw error;
      await requeue(deps, error, lease, extra);
    }
  }
}

/**
 * The key is full: the request gives its slot back (it may have been taken before the limit was known, or
 * another client filled the key) and queues, first in line, for a slot of the limit the 429 taught — then
 * waits out what is left of the Retry-After. Rethrows the 429 when everyone waiting has gone: it is the last
 * answer, and it proves that nothing was created.
 */
async function requeue(
  deps: SpeechPlatform,
  error: ApiError,
  lease: Lease,
  extra: PostOptions,
): Promise<void> {
  const pausedUntil = deps.now() + busyPause(deps, error);
  lease.slot.release();
  let waited = false;
  try {
    lease.slot = await deps.governor.acquire({
      signal: extra.signal,
      onPosition: (position) => {
        waited = true;
        extra.onQueued?.(position);
      },
      front: true,
    });
  } catch {
    throw error;
  }
  if (waited) extra.onDequeued?.();
  try {
    if (pausedUntil > deps.now()) await deps.sleep(pausedUntil - deps.now(), extra.signal);
  } catch {
    throw error;
  }
}
