/**
 * Each service's job view: what a long-job answer says of a job (its status, progress, how it stopped and
 * why), the same on every server that shows the service's jobs.
 */
import { describe, expect, it } from 'vitest';
import type { FlashcardJob } from '../contracts/flashcards.js';
import type { MeetingJob } from '../contracts/meeting.js';
import type { ReadingScoreTask } from '../contracts/reading-score.js';
import type { VideoJob } from '../contracts/video.js';
import { JobFailedError } from '../errors/polymodal-error.js';
import { flashcardsJobView } from './flashcards-job.js';
import { meetingJobView } from './meeting-job.js';
import { readingTaskView } from './reading-score-job.js';
import { speechTextView } from './speech-job.js';
import { videoJobView } from './video-job.js';

const meeting = (fields: Partial<MeetingJob>) => ({ id: 'm1', progress: 0, ...fields }) as MeetingJob;
const video = (fields: Partial<VideoJob>) => ({ request_id: 'v1', ...fields }) as VideoJob;
const cards = (fields: Partial<FlashcardJob>) => ({ job_id: 'f1', ready: false, ...fields }) as FlashcardJob;
const task = (fields: Partial<ReadingScoreTask>) => ({ taskId: 't1', ...fields }) as ReadingScoreTask;
const parts = { parts: 4, finished: 1, queued: 2, submitted: 2 };

describe('job views', () => {
  it('meeting: its own progress and errorMessage; an outcome only once it stopped', () => {
    expect(meetingJobView(meeting({ status: 'TRANSCRIBING', progress: 40 }))).toEqual({
      status: 'TRANSCRIBING',
      progress: 40,
      outcome: undefined,
      error: null,
    });
    expect(meetingJobView(meeting({ status: 'FAILED', errorMessage: 'no speech' }))).toMatchObject({
      outcome: 'failed',
      error: 'no speech',
    });
    expect(meetingJobView(meeting({ status: 'CANCELLED' })).outcome).toBe('cancelled');
  });

  it('video: either spelling of cancelled, the error object as text, a reason always given', () => {
    expect(videoJobView(video({ status: 'done' }))).toEqual({
      status: 'done',
      progress: 100,
      outcome: 'succeeded',
      error: null,
    });
    expect(
      videoJobView(video({ status: 'failed', error: { code: 'E1', message: 'bad prompt' } })),
    ).toMatchObject({ outcome: 'failed', error: 'E1: bad prompt' });
    expect(videoJobView(video({ status: 'cancelled' }))).toMatchObject({
      outcome: 'cancelled',
      error: 'no reason given',
    });
  });

  it("flashcards: the service's progress text, a success only with a result", () => {
    const running = cards({ status: 'processing', progress: { percent: 30, stage: 'asr' } });
    expect(flashcardsJobView(running)).toMatchObject({ progress: 30, message: 'processing (asr)' });
    expect(flashcardsJobView(cards({ status: 'done', ready: true, successful: true }))).toMatchObject({
      outcome: 'failed',
      error: 'no reason given',
    });
    expect(flashcardsJobView(cards({ status: 'canceled', ready: true }))).toMatchObject({
      outcome: 'cancelled',
    });
  });

  it('reading score: a failed task says why, a string as it is and an object as JSON', () => {
    expect(readingTaskView(task({ state: 'PENDING', ready: false }))).toEqual({
      status: 'PENDING',
      progress: 0,
      outcome: undefined,
      error: null,
    });
    expect(
      readingTaskView(task({ state: 'FAILURE', ready: true, successful: false, error: 'silent' })).error,
    ).toBe('silent');
    expect(readingTaskView(task({ state: 'FAILURE', ready: true, error: { code: 7 } })).error).toBe(
      '{"code":7}',
    );
  });

  it("speech: a text's parts as progress, and why it stopped in words an agent can act on", () => {
    expect(speechTextView({ state: 'running', progress: parts }, 3)).toEqual({
      status: 'RUNNING',
      progress: 25,
      message: '1 of 4 parts done; 2 waiting for a free slot (key limit 3)',
      outcome: undefined,
      error: null,
    });
    const reason = new JobFailedError({
      service: 'speech-synthesis',
      jobId: 't9',
      status: 'FAILURE',
      errorMessage: null,
    });
    expect(speechTextView({ state: 'failed', progress: parts, reason }, undefined)).toMatchObject({
      status: 'FAILURE',
      outcome: 'failed',
      error: 'task t9 ended FAILURE: no reason given',
    });
    expect(speechTextView({ state: 'cancelled', progress: parts }, undefined).error).toMatch(
      /^cancelled by the caller: 2 of 4 parts had been sent/,
    );
  });
});
