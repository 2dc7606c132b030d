/**
 * `GET /audio/speech/{taskId}`: a task's state on the clock with `Retry-After` while it is unfinished,
 * the WAV's URL and metadata once it succeeded, and — when configured — a 429 for polling the same task
 * faster than the platform allows.
 */

import { HttpError } from '../../framework/http-error.js';
import type { RequestContext } from '../../framework/request-context.js';
import { json, type SandboxResponse } from '../../framework/sandbox-response.js';
import { authenticateMedia } from '../../media/media-request.js';
import { synthesizeVoice, VOICE_SAMPLE_RATE, voiceDurationSeconds } from '../../media/synthesize-voice.js';
import {
  activeTasks,
  cloneTextOf,
  type SpeechState,
  type SpeechTask,
  stateOf,
  type TaskState,
} from './speech-tasks.js';

const FAILURE_MESSAGE = 'synthesis failed: the model returned no audio for this text';

function resultOf(state: SpeechState, task: SpeechTask) {
  const speech = task.request;
  const pace = speech.expression === 'storytelling' ? 1.15 : 1;
  if (!task.url) {
    const options = { text: speech.text, pitchHz: task.pitchHz, seed: task.seed, pace };
    task.url = state.files.add({
      name: `${task.id}.wav`,
      contentType: 'audio/wav',
      body: { bytes: () => synthesizeVoice(options) },
    });
  }
  const duration = Math.round(voiceDurationSeconds(speech.text, pace) * 1000) / 1000;
  const metadata: Record<string, unknown> = {
    text: speech.text,
    language: speech.language,
    model: speech.model,
    duration,
    seed: task.seed,
    sample_rate: VOICE_SAMPLE_RATE,
    voice: task.voice,
  };
  if (speech.requestedModel) metadata.requested_model = speech.requestedModel;
  if (speech.expression) metadata.model_a_expression = speech.expression;
  if (speech.instruct) metadata.instruct = speech.instruct;
  if (speech.clone) metadata.clone_audio = speech.clone.kind === 'url' ? speech.clone.url : speech.clone.path;
  const cloneText = cloneTextOf(state, speech, task.userId);
  if (cloneText) metadata.clone_text = cloneText;
  return { success: true, url: task.url, metadata };
}

/** Refuses a poll of the same task sooner than the configured interval after the last one. */
function checkPollInterval(state: SpeechState, task: SpeechTask, caller: { key: string; now: number }): void {
  const { limits } = state;
  const { key, now } = caller;
  if (
    limits.statusMinIntervalMs <= 0 ||
    task.lastPollAt === undefined ||
    now - task.lastPollAt >= limits.statusMinIntervalMs
  ) {
    return;
  }
  const active = activeTasks(state, key, now);
  const wait = Math.max(1, Math.ceil((task.lastPollAt + limits.statusMinIntervalMs - now) / 1000));
  throw new HttpError(
    429,
    'polling too fast: keep the same taskId and retry this status URL after Retry-After',
    {
      headers: { 'retry-after': String(wait), 'cache-control': 'no-store' },
      fields: {
        activeJobs: active.length,
        concurrentLimit: limits.concurrentSessions,
        retryAfterSeconds: wait,
      },
    },
  );
}

/** While queued, the time left in the queue (at least the configured pause); while synthesising, the pause. */
function retryAfterHeaders(state: SpeechState, task: SpeechTask, at: { state: TaskState; now: number }) {
  const { statusRetryAfterSeconds } = state.limits;
  const headers: Record<string, string> = {};
  if (at.state === 'PENDING') {
    headers['retry-after'] = String(
      Math.max(1, statusRetryAfterSeconds, Math.ceil((task.createdAt + task.phases[0]!.ms - at.now) / 1000)),
    );
  } else if (at.state === 'STARTED' && statusRetryAfterSeconds > 0) {
    headers['retry-after'] = String(statusRetryAfterSeconds);
  }
  return headers;
}

export function getSpeech(state: SpeechState, request: RequestContext): SandboxResponse {
  const { user, key } = authenticateMedia(request);
  const task = state.tasks.get(request.params.taskId!);
  if (!task || task.userId !== user.id) {
    throw new HttpError(404, `task ${request.params.taskId} not found or not accessible with this key`);
  }
  const now = state.clock.now();
  checkPollInterval(state, task, { key, now });
  task.lastPollAt = now;
  const { state: taskState, position } = stateOf(task, now);
  const ready = taskState === 'SUCCESS' || taskState === 'FAILURE';
  const body: Record<string, unknown> = {
    taskId: task.id,
    state: taskState,
    ready,
    successful: ready ? taskState === 'SUCCESS' : null,
  };
  if (!ready) {
    body.progress = {
      percent: Math.min(99, Math.floor(position.fraction * 100)),
      stage: taskState === 'PENDING' ? 'queued' : 'synthesizing',
    };
  }
  if (taskState === 'SUCCESS') body.result = resultOf(state, task);
  if (taskState === 'FAILURE') body.error = FAILURE_MESSAGE;
  return json(200, body, retryAfterHeaders(state, task, { state: taskState, now }));
}
