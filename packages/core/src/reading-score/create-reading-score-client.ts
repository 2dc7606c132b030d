/**
 * Client of the reading score service. `score` answers with the result whether the service replies at
 * once (200) or queues the work (202 with `taskId` and `statusPath`, then polled with the same key until
 * `ready=true`). `submit` never waits.
 *
 * Requests go out with the canonical field names; callers holding form fields under any accepted alias
 * pass them as `formFields`, and `scoring_options` is sent as a JSON string.
 *
 * Choices where the spec is silent: exactly one of reference text and reference audio is accepted (the
 * spec requires one; sending both would leave which one counts to the server); the task route is polled
 * every 2 s with a 10-minute default deadline; a scoring POST is not idempotent, so it is repeated only when
 * it provably never arrived or after an explicit 429; a recording over 50 MiB is refused locally (the
 * service's limit is not shown).
 *
 * Each recording is opened once and checked on that descriptor before anything is sent (audio by its
 * content, a structure that parses: a `RIFF…WAVE` header followed by junk is refused); the request, and a
 * retry of it, reads the same descriptor, never the path again.
 *
 * Scores go through the job engine like every paid request: an identical request (same recordings, same
 * fields) in flight is joined, a queued task is resumed (the same score is never POSTed twice), and an
 * answer given at once (200) is kept in the ledger and returned again for the identical request instead of
 * being paid for again (`forceNew` scores anew). The task is read at the `statusPath` the service returned,
 * never at a path rebuilt from the id.
 */
import path from 'node:path';
import { READING_SCORE_MAX_UPLOAD_BYTES } from '../constants/reading-score-limits.js';
import {
  LEGACY_READING_SCORE_API_PATH,
  READING_SCORE_API_PATH,
  READING_SCORE_SERVICE,
} from '../constants/service-table.js';
import {
  canonicalReadingScoreField,
  ReadingScoreAnswer,
  ReadingScoreEngine,
  ReadingScoreQueued,
  type ReadingScoreResult,
  ReadingScoreTask,
  ReadingScoringOptions,
} from '../contracts/reading-score.js';
import { describeIssues, listIssues } from '../errors/describe-issues.js';
import { ValidationError } from '../errors/polymodal-error.js';
import type { FileAccess } from '../files/create-file-access.js';
import { type OpenedFile, openRegularFile, readAt } from '../files/open-verified-file.js';
import { type SharedFile, shareOpenedFile } from '../files/share-opened-file.js';
import { type CallOptions, requestOptionsOf, startCall, waitTimeoutMs } from '../http/call-options.js';
import type { HttpClient } from '../http/http-client.js';
import { createJobEngine, type JobEngine } from '../jobs/create-job-engine.js';
import { defineJobResource, type JobPollOptions, type JobWaitOptions } from '../jobs/job-resource.js';
import type { PollOutcome } from '../jobs/poll-job.js';
import { fingerprint } from '../ledger/fingerprint.js';
import {
  RECORDING_CONTENT_TYPES,
  type RecordingContainer,
  SIGNATURE_BYTES,
  sniffAudioContainer,
} from '../media/recording-formats.js';
import { validateRecordingContent } from '../media/validate-recording-content.js';
import { createMultipartFileBody } from '../upload/create-multipart-file-body.js';
import { READING_SCORE_TASK } from '../views/reading-score-job.js';
export const READING_SCORE_WAIT_TIMEOUT_MS = 10 * 60 * 1000;

/** `timeout` bounds the whole submission (like `deadline`); `maxRetries` applies to its requests. */
export interface ReadingScoreOptions extends CallOptions {
  /** The student's recording (local path). */
  studentAudio: string;
  /** What the student should have read; or give `referenceAudio`. */
  referenceText?: string;
  /** A recording of the reference reading (local path); or give `referenceText`. */
  referenceAudio?: string;
  engine?: ReadingScoreEngine;
  studentId?: string;
  lessonId?: string;
  /** Default true (the service's default). */
  includePronunciation?: boolean;
  /** Sent as the JSON string `scoring_options` (`include_pronunciation`, `asr_engine`, further keys as is). */
  scoringOptions?: ReadingScoringOptions;
  /**
   * Further text fields as a form would send them, by canonical name or any accepted alias (`referenceText`,
   * `studentId`, `lessonId`, `asrEngine`); they are sent under the canonical name. Files go through
   * `studentAudio`/`referenceAudio`, and a field given twice is refused.
   */
  formFields?: Readonly<Record<string, string>>;
  /** Use the older `/api/low-latency-asr/reading-score` route. */
  legacyRoute?: boolean;
  signal?: AbortSignal;
  /** How long to wait for an identical request already running elsewhere (epoch ms). */
  deadline?: number;
  /** Score again although this installation already scored the identical request. */
  forceNew?: boolean;
}

/** The ledger status of a score answered at once (its result is kept in the entry). */
const ANSWERED = 'ANSWERED';

export type ReadingScoreSubmission = (
  | { kind: 'result'; result: ReadingScoreResult }
  | { kind: 'queued'; taskId: string; statusPath: string }
) & {
  /** True when the identical request's recorded result or task was returned and nothing was sent. */
  resumed: boolean;
  /** True when this call joined the identical request in flight. */
  joined: boolean;
};

export interface ReadingScoreClient {
  submit(options: ReadingScoreOptions): Promise<ReadingScoreSubmission>;
  /** One look at a queued task (by its `statusPath` or `taskId`). */
  retrieve(statusPathOrTaskId: string, options?: CallOptions): Promise<ReadingScoreTask>;
  /** Waits on a queued task until it is ready or `deadline` comes, at most one read per 2 s. */
  poll(
    statusPathOrTaskId: string,
    options: JobPollOptions<ReadingScoreTask>,
  ): Promise<PollOutcome<ReadingScoreTask>>;
  /** Polls a queued task until ready; a failed task → JobFailedError. */
  wait(statusPathOrTaskId: string, options?: JobWaitOptions<ReadingScoreTask>): Promise<ReadingScoreResult>;
  /** submit + wait when queued. */
  score(options: ReadingScoreOptions & JobWaitOptions<ReadingScoreTask>): Promise<ReadingScoreResult>;
}

/** Content types sent for the audio containers recognised by content (WebM as audio here). */
const READING_AUDIO_TYPES: Partial<Record<RecordingContainer, string>> = {
  webm: 'audio/webm',
};

/** A recording opened and checked for one submission. */
interface CheckedAudio {
  file: SharedFile;
  /** File name announced to the service. */
  name: string;
  contentType: string;
}

export function createReadingScoreClient(options: {
  http: HttpClient;
  engine?: JobEngine;
  files?: FileAccess;
  /** Minimum time between two reads of a task (default 2 s). */
  pollIntervalMs?: number;
}): ReadingScoreClient {
  const { http, files } = options;
  const engine = options.engine ?? createJobEngine();

  /**
   * Opens a recording once and checks it on the descriptor before anything is sent: a regular file, not
   * empty, within READING_SCORE_MAX_UPLOAD_BYTES, audio by its content (WAV, MP3, M4A, OGG, WebM, FLAC)
   * whose structure parses. The upload reads the same descriptor, so what was checked is what is sent.
   */
  async function checkedAudio(input: string, field: string): Promise<CheckedAudio> {
    const openAudio = () => (files ? files.openReadable(input) : openRegularFile(input));
    let opened: OpenedFile;
    try {
      opened = await openAudio();
    } catch (error) {
      if (!ValidationError.isInstance(error)) throw error;
      throw new ValidationError(`${field}: ${error.message}`, [{ path: field, message: 'not readable' }]);
    }
    const audio = shareOpenedFile(opened, openAudio);
    const refuse = (problem: string, fix: string): never => {
      throw new ValidationError(`${field}: ${opened.realPath} ${problem}. ${fix} Nothing was sent.`, [
        { path: field, message: problem },
      ]);
    };
    try {
      if (opened.size === 0) refuse('is empty', 'Check that the recording finished writing.');
      if (opened.size > READING_SCORE_MAX_UPLOAD_BYTES) {
        refuse(
          `is ${(opened.size / 1048576).toFixed(1)} MB, over the ${READING_SCORE_MAX_UPLOAD_BYTES / 1048576} MB limit for a reading recording`,
          'Trim it to the reading itself, or convert it to mono 16 kHz WAV or MP3.',
        );
      }
      const container = sniffAudioContainer(await readAt(opened.handle, 0, SIGNATURE_BYTES));
      if (container === undefined) {
        refuse(
          'is not a WAV, MP3, M4A, OGG, WebM or FLAC recording (checked by its content)',
          'Give the path of the recording itself, or convert it to WAV.',
        );
      }
      const checked = container as RecordingContainer;
      // The duration is not needed here: reading it could mean scanning a whole MP3.
      const content = await validateRecordingContent(opened, checked, { duration: false });
      if ('problem' in content) {
        refuse(content.problem, 'Re-export or re-record it, then try again.');
      }
      return {
        file: audio,
        name: path.basename(opened.realPath),
        contentType: READING_AUDIO_TYPES[checked] ?? RECORDING_CONTENT_TYPES[checked],
      };
    } catch (error) {
      await audio.release();
      throw error;
    }
  }

  function taskPath(statusPathOrTaskId: string): string {
    if (statusPathOrTaskId.startsWith('/')) {
      const allowed = [READING_SCORE_API_PATH, LEGACY_READING_SCORE_API_PATH].some((base) =>
        statusPathOrTaskId.startsWith(`${base}/task/`),
      );
      if (!allowed || statusPathOrTaskId.includes('..')) {
        throw new ValidationError(`Not a reading-score status path: ${statusPathOrTaskId}`, [
          { path: 'statusPath', message: 'unexpected path' },
        ]);
      }
      return statusPathOrTaskId;
    }
    if (!/^[A-Za-z0-9_.:-]{1,200}$/.test(statusPathOrTaskId)) {
      throw new ValidationError(`Invalid reading-score task id: ${statusPathOrTaskId}`, [
        { path: 'taskId', message: 'invalid' },
      ]);
    }
    return `${READING_SCORE_API_PATH}/task/${statusPathOrTaskId}`;
  }

  /** Folds `formFields` (canonical names or aliases) into the typed options; conflicts are refused. */
  function withFormFields(request: ReadingScoreOptions): ReadingScoreOptions {
    const merged: ReadingScoreOptions = { ...request };
    const refuse = (name: string, message: string) => {
      throw new ValidationError(`formFields.${name}: ${message}. Nothing was sent.`, [
        { path: `formFields.${name}`, message },
      ]);
    };
    const setOnce = <K extends keyof ReadingScoreOptions>(
      name: string,
      key: K,
      value: ReadingScoreOptions[K],
    ) => {
      if (merged[key] !== undefined) refuse(name, `${String(key)} is already given`);
      merged[key] = value;
    };
    for (const [name, value] of Object.entries(request.formFields ?? {})) {
      const field = canonicalReadingScoreField(name);
      if (field === undefined) refuse(name, 'not a field of the reading score service');
      switch (field) {
        case 'student_audio':
        case 'reference_audio':
          refuse(name, 'files are given as studentAudio / referenceAudio paths');
          break;
        case 'reference_text':
          setOnce(name, 'referenceText', value);
          break;
        case 'student_id':
          setOnce(name, 'studentId', value);
          break;
        case 'lesson_id':
          setOnce(name, 'lessonId', value);
          break;
        case 'asr_engine':
          setOnce(name, 'engine', value as ReadingScoreEngine);
          break;
        case 'language':
          if (value !== 'th') refuse(name, 'only Thai (th) is supported');
          break;
        case 'include_pronunciation':
          if (value !== 'true' && value !== 'false') refuse(name, 'true or false');
          setOnce(name, 'includePronunciation', value === 'true');
          break;
        case 'scoring_options': {
          let parsed: unknown;
          try {
            parsed = JSON.parse(value);
          } catch {
            refuse(name, 'not JSON');
          }
          setOnce(name, 'scoringOptions', parsed as ReadingScoringOptions);
          break;
        }
      }
    }
    return merged;
  }

  async function submit(input: ReadingScoreOptions): Promise<ReadingScoreSubmission> {
    // `timeout` bounds the whole call: from here on it is the `deadline`.
    const request = withFormFields(startCall(input));
    const hasText = request.referenceText !== undefined && request.referenceText.trim() !== '';
    if (hasText === (request.referenceAudio !== undefined)) {
      throw new ValidationError(
        'Give either referenceText or referenceAudio (exactly one). Nothing was sent.',
        [{ path: 'referenceText', message: 'exactly one of referenceText and referenceAudio' }],
      );
    }
    if (request.engine !== undefined && !ReadingScoreEngine.safeParse(request.engine).success) {
      throw new ValidationError(
        `Unknown engine ${request.engine}: use engine_t (default) or engine_w. Nothing was sent.`,
        [{ path: 'engine', message: 'engine_t or engine_w' }],
      );
    }
    let scoringOptions: string | undefined;
    if (request.scoringOptions !== undefined) {
      const parsed = ReadingScoringOptions.safeParse(request.scoringOptions);
      if (!parsed.success) {
        const issues = describeIssues(parsed.error, request.scoringOptions, ['scoringOptions']);
        throw new ValidationError(`Invalid scoringOptions: ${listIssues(issues)}. Nothing was sent.`, issues);
      }
      const inner = parsed.data;
      // The same setting twice with different values would leave the choice to the server.
      if (inner.asr_engine && request.engine && inner.asr_engine !== request.engine) {
        throw new ValidationError(
          `engine ${request.engine} and scoringOptions.asr_engine ${inner.asr_engine} disagree. Nothing was sent.`,
          [{ path: 'scoringOptions.asr_engine', message: 'differs from engine' }],
        );
      }
      if (
        inner.include_pronunciation !== undefined &&
        request.includePronunciation !== undefined &&
        inner.include_pronunciation !== request.includePronunciation
      ) {
        throw new ValidationError(
          'includePronunciation and scoringOptions.include_pronunciation disagree. Nothing was sent.',
          [{ path: 'scoringOptions.include_pronunciation', message: 'differs from includePronunciation' }],
        );
      }
      scoringOptions = JSON.stringify(inner);
    }
    const fields: Record<string, string> = { language: 'th' };
    if (hasText) fields.reference_text = (request.referenceText as string).trim();
    if (request.engine) fields.asr_engine = request.engine;
    if (request.studentId) fields.student_id = request.studentId;
    if (request.lessonId) fields.lesson_id = request.lessonId;
    if (request.includePronunciation !== undefined)
      fields.include_pronunciation = String(request.includePronunciation);
    if (scoringOptions !== undefined) fields.scoring_options = scoringOptions;

    const student = await checkedAudio(request.studentAudio, 'studentAudio');
    let reference: CheckedAudio | undefined;
    try {
      reference = request.referenceAudio
        ? await checkedAudio(request.referenceAudio, 'referenceAudio')
        : undefined;
      return await submitChecked(request, fields, student, reference);
    } finally {
      // The scoring request may outlive this call (see the job engine): each file closes after it.
      await student.file.release();
      await reference?.file.release();
    }
  }

  async function submitChecked(
    request: ReadingScoreOptions,
    fields: Record<string, string>,
    student: CheckedAudio,
    reference: CheckedAudio | undefined,
  ): Promise<ReadingScoreSubmission> {
    const studentFile = student.file.opened;
    const referenceFile = reference?.file.opened;
    const identity = {
      service: READING_SCORE_SERVICE,
      student: { file: studentFile.realPath, size: studentFile.size, mtimeMs: studentFile.mtimeMs },
      ...(referenceFile
        ? {
            reference: {
              file: referenceFile.realPath,
              size: referenceFile.size,
              mtimeMs: referenceFile.mtimeMs,
            },
          }
        : {}),
      fields,
      legacyRoute: request.legacyRoute === true,
    };
    let answered: ReadingScoreSubmission | undefined;
    const started = await engine.start({
      service: READING_SCORE_SERVICE,
      fingerprint: fingerprint(identity),
      title: student.name,
      request: {
        studentAudio: studentFile.realPath,
        ...(referenceFile ? { referenceAudio: referenceFile.realPath } : {}),
        ...fields,
      },
      signal: request.signal,
      deadline: request.deadline,
      forceNew: request.forceNew,
      resubmitOption: 'newJob',
      reusable: (status) => !['FAILURE'].includes(status),
      current: async (id, request) => {
        const entry = await engine.find(READING_SCORE_SERVICE, id);
        if (entry?.lastStatus === ANSWERED) return ANSWERED;
        return tasks.currentStatus(id, request);
      },
      submit: async ({ signal, save }) => {
        const send = (studentUpload: OpenedFile, referenceUpload: OpenedFile | undefined) =>
          http.request({
            method: 'POST',
            path: request.legacyRoute ? LEGACY_READING_SCORE_API_PATH : READING_SCORE_API_PATH,
            // Rebuilt from the same descriptors for a permitted retry, never from the paths.
            multipart: () =>
              createMultipartFileBody({
                field: 'student_audio',
                file: studentUpload,
                filename: student.name,
                contentType: student.contentType,
                fields,
                ...(reference && referenceUpload
                  ? {
                      additionalFiles: [
                        {
                          field: 'reference_audio',
                          file: referenceUpload,
                          filename: reference.name,
                          contentType: reference.contentType,
                        },
                      ],
                    }
                  : {}),
              }),
            schema: ReadingScoreAnswer,
            idempotent: false,
            signal,
            maxRetries: request.maxRetries,
          });
        const response = await student.file.use((studentUpload) =>
          reference
            ? reference.file.use((referenceUpload) => send(studentUpload, referenceUpload))
            : send(studentUpload, undefined),
        );
        const queued = ReadingScoreQueued.safeParse(response.data);
        if (queued.success) {
          await save({ data: { statusPath: queued.data.statusPath } });
          answered = { kind: 'queued', ...queued.data, resumed: false, joined: false };
          return { id: queued.data.taskId, status: 'PENDING' };
        }
        const result = response.data as ReadingScoreResult;
        // Answered at once: there is no task to come back to, so the answer itself is what is recorded.
        const id = `answered-${fingerprint({ identity, at: Date.now() }).slice(0, 24)}`;
        await save({ data: { result } });
        answered = { kind: 'result', result, resumed: false, joined: false };
        return { id, status: ANSWERED };
      },
    });
    if (answered && !started.joined) return answered;
    const entry = await engine.find(READING_SCORE_SERVICE, started.id);
    const flags = { resumed: started.resumed, joined: started.joined };
    if (started.status === ANSWERED && entry?.data?.result) {
      return { kind: 'result', result: entry.data.result as ReadingScoreResult, ...flags };
    }
    const statusPath =
      typeof entry?.data?.statusPath === 'string' ? entry.data.statusPath : taskPath(started.id);
    return { kind: 'queued', taskId: started.id, statusPath, ...flags };
  }

  /** The path to read a task at: the `statusPath` the service returned (kept in the ledger), else built. */
  async function locate(statusPathOrTaskId: string): Promise<{ id: string; path: string }> {
    if (statusPathOrTaskId.startsWith('/')) {
      const checked = taskPath(statusPathOrTaskId);
      return { id: checked.slice(checked.lastIndexOf('/') + 1), path: checked };
    }
    const entry = await engine.find(READING_SCORE_SERVICE, statusPathOrTaskId);
    const recorded = entry?.data?.statusPath;
    return {
      id: statusPathOrTaskId,
      path: typeof recorded === 'string' ? taskPath(recorded) : taskPath(statusPathOrTaskId),
    };
  }

  const tasks = defineJobResource<ReadingScoreTask>({
    service: READING_SCORE_SERVICE,
    kind: READING_SCORE_TASK,
    engine,
    intervalMs: options.pollIntervalMs,
    waitTimeoutMs: READING_SCORE_WAIT_TIMEOUT_MS,
    locate,
    fetch: (path, call) =>
      http.request({
        method: 'GET',
        path,
        schema: ReadingScoreTask,
        idempotent: true,
        ...requestOptionsOf(call),
      }),
    // Ready but failed, or without a result → JobFailedError, named by the task's own id.
    failure: ({ successful, result, taskId, error }) =>
      successful === false || !result
        ? {
            jobId: taskId,
            errorMessage:
              typeof error === 'string' ? error : error === undefined ? null : JSON.stringify(error),
          }
        : undefined,
  });

  /** The score of a queued task, once it is ready (a failed task → JobFailedError). */
  async function wait(
    statusPathOrTaskId: string,
    call: JobWaitOptions<ReadingScoreTask> = {},
  ): Promise<ReadingScoreResult> {
    return (await tasks.wait(statusPathOrTaskId, call)).result as ReadingScoreResult;
  }

  return {
    submit,
    retrieve: tasks.retrieve,
    poll: tasks.poll,
    wait,
    async score(scoreOptions) {
      const request = startCall(scoreOptions);
      const submitted = await submit(request);
      if (submitted.kind === 'result') return submitted.result;
      return wait(submitted.statusPath, {
        ...(request.signal ? { signal: request.signal } : {}),
        maxRetries: request.maxRetries,
        timeoutMs: waitTimeoutMs(request, READING_SCORE_WAIT_TIMEOUT_MS),
        ...(request.onProgress ? { onProgress: request.onProgress } : {}),
      });
    },
  };
}
