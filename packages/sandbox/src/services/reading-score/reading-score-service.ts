/**
 * The reading score service: `POST /api/reading-score` (and the legacy `/api/low-latency-asr/reading-score`),
 * multipart with the canonical fields and every alias, 200 with the result or 202 with a task to poll at
 * `/task/{taskId}` with the same key.
 *
 * Sandbox choices where the spec is silent: invalid input → 400 `{error}` (missing student audio, no
 * reference, both text and audio are fine — text wins, non-Thai language, unknown engine, bad
 * scoring_options JSON); files over 50 MB → 413; a student recording longer than 20 s answers 202 and its
 * task completes after 2 s + a tenth of the audio length (sandbox clock, scaled by speed); another user's
 * task → 404. The `asr_engine` field wins over `scoring_options.asr_engine`.
 *
 * The form is read in reading-form.ts and scored in score-reading.ts; this module holds the routes and the
 * queue of long recordings.
 */
import type { KeyScheme } from '../../framework/authenticator.js';
import { HttpError } from '../../framework/http-error.js';
import type { RequestContext } from '../../framework/request-context.js';
import type { Router } from '../../framework/router.js';
import { json, type SandboxResponse } from '../../framework/sandbox-response.js';
import type { SandboxService, ServiceContext } from '../../framework/sandbox-service.js';
import { analyzeStudentAudio } from './analyze-student-audio.js';
import { readMultipart } from './read-multipart.js';
import { parseReadingForm } from './reading-form.js';
import { scoreReading } from './score-reading.js';

export const READING_SCORE_PATH = '/api/reading-score';
export const LEGACY_READING_SCORE_PATH = '/api/low-latency-asr/reading-score';
const KEY_SCHEMES: readonly KeyScheme[] = ['x-api-key'];
const MAX_FILE_BYTES = 50 * 1024 * 1024;
const QUEUE_ABOVE_SECONDS = 20;

/** A queued score: its result is computed at once and shown from `readyAt` on. */
interface Task {
  id: string;
  userId: string;
  readyAt: number;
  result: unknown;
}

interface ReadingScoreState {
  context: ServiceContext;
  tasks: Map<string, Task>;
  /** Tasks queued since start or reset: numbers the task ids. */
  sequence: number;
}

/** Queues a long recording's result; it is ready after 2 s plus a tenth of the audio (sandbox clock). */
function queue(state: ReadingScoreState, task: { userId: string; durationSeconds: number; result: unknown }) {
  const { context } = state;
  state.sequence += 1;
  const id = `rs_${state.sequence.toString().padStart(6, '0')}`;
  const delayMs = ((2 + task.durationSeconds / 10) * 1000) / context.speed;
  state.tasks.set(id, {
    id,
    userId: task.userId,
    readyAt: context.clock.now() + delayMs,
    result: task.result,
  });
  return id;
}

async function score(
  state: ReadingScoreState,
  request: RequestContext,
  statusBase: string,
): Promise<SandboxResponse> {
  const { user } = request.authenticate(KEY_SCHEMES);
  const form = parseReadingForm(await readMultipart(request.request, MAX_FILE_BYTES));
  const heard = analyzeStudentAudio(form.studentAudio);
  const result = scoreReading({ referenceText: form.referenceText, heard, request: form.request });
  state.context.counters.increment('readingScores', user.id);
  if (heard.durationSeconds <= QUEUE_ABOVE_SECONDS) return json(200, result);
  const id = queue(state, { userId: user.id, durationSeconds: heard.durationSeconds, result });
  return json(202, {
    success: true,
    queued: true,
    taskId: id,
    state: 'PENDING',
    ready: false,
    statusPath: `${statusBase}/task/${id}`,
  });
}

function status(state: ReadingScoreState, request: RequestContext): SandboxResponse {
  const { user } = request.authenticate(KEY_SCHEMES);
  const task = state.tasks.get(request.params.taskId ?? '');
  if (!task || task.userId !== user.id) throw new HttpError(404, `task ${request.params.taskId} not found`);
  if (state.context.clock.now() < task.readyAt)
    return json(200, { taskId: task.id, state: 'PENDING', ready: false });
  return json(200, {
    taskId: task.id,
    state: 'SUCCESS',
    ready: true,
    successful: true,
    result: task.result,
  });
}

export function createReadingScoreService(context: ServiceContext): SandboxService {
  const state: ReadingScoreState = { context, tasks: new Map(), sequence: 0 };
  return {
    name: 'reading-score',
    register(router: Router) {
      for (const base of [READING_SCORE_PATH, LEGACY_READING_SCORE_PATH]) {
        router.route('POST', base, (request) => score(state, request, base));
        router.route('GET', `${base}/task/:taskId`, (request) => status(state, request));
      }
    },
    settle() {},
    async reset() {
      state.tasks.clear();
      state.sequence = 0;
    },
    async close() {
      state.tasks.clear();
    },
  };
}
