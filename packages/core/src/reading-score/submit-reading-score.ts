/**
 * Submitting a reading for a score, through the job engine like every paid request: an identical request
 * (same recordings, same fields) in flight is joined, a queued task is resumed (the same score is never
 * POSTed twice), and an answer given at once (200) is kept in the ledger and returned again for the
 * identical request instead of being paid for again (`forceNew` scores anew).
 *
 * The scoring POST is not idempotent, so it is repeated only when it provably never arrived or after an
 * explicit 429; each recording is opened once and checked before anything is sent, and the request (and a
 * retry of it) reads the same descriptors, never the paths again.
 */
import {
  LEGACY_READING_SCORE_API_PATH,
  READING_SCORE_API_PATH,
  READING_SCORE_SERVICE,
} from '../constants/service-table.js';
import {
  ReadingScoreAnswer,
  ReadingScoreQueued,
  type ReadingScoreResult,
} from '../contracts/reading-score.js';
import type { FileAccess } from '../files/create-file-access.js';
import type { OpenedFile } from '../files/open-verified-file.js';
import { startCall } from '../http/call-options.js';
import type { HttpClient } from '../http/http-client.js';
import type { JobEngine, StartJobContext } from '../jobs/job-engine.js';
import { fingerprint } from '../ledger/fingerprint.js';
import { createMultipartFileBody } from '../upload/create-multipart-file-body.js';
import { type CheckedAudio, openCheckedAudio } from './checked-audio.js';
import { readingScoreFields, withFormFields } from './reading-score-fields.js';
import type { ReadingScoreOptions, ReadingScoreSubmission } from './reading-score-types.js';
import { type ReadingTasks, readingTaskPath } from './reading-tasks.js';

/** The ledger status of a score answered at once (its result is kept in the entry). */
const ANSWERED = 'ANSWERED';

export interface ReadingScoreDeps {
  http: HttpClient;
  engine: JobEngine;
  files: FileAccess | undefined;
  tasks: ReadingTasks;
}

/** One scoring request, checked: its options, the fields to send and the opened recordings. */
interface CheckedRequest {
  request: ReadingScoreOptions;
  fields: Record<string, string>;
  student: CheckedAudio;
  reference: CheckedAudio | undefined;
}

export async function submitReadingScore(
  deps: ReadingScoreDeps,
  input: ReadingScoreOptions,
): Promise<ReadingScoreSubmission> {
  // `timeout` bounds the whole call: from here on it is the `deadline`.
  const request = withFormFields(startCall(input));
  const fields = readingScoreFields(request);
  const student = await openCheckedAudio(deps.files, { path: request.studentAudio, field: 'studentAudio' });
  let reference: CheckedAudio | undefined;
  try {
    reference = request.referenceAudio
      ? await openCheckedAudio(deps.files, { path: request.referenceAudio, field: 'referenceAudio' })
      : undefined;
    return await submitChecked(deps, { request, fields, student, reference });
  } finally {
    // The scoring request may outlive this call (see the job engine): each file closes after it.
    await student.file.release();
    await reference?.file.release();
  }
}

async function submitChecked(
  deps: ReadingScoreDeps,
  checked: CheckedRequest,
): Promise<ReadingScoreSubmission> {
  const { engine } = deps;
  const { request, fields } = checked;
  const studentFile = checked.student.file.opened;
  const referenceFile = checked.reference?.file.opened;
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
  const answer: { submission?: ReadingScoreSubmission } = {};
  const started = await engine.start({
    service: READING_SCORE_SERVICE,
    fingerprint: fingerprint(identity),
    title: checked.student.name,
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
    current: async (id, recorded) => {
      const entry = await engine.find(READING_SCORE_SERVICE, id);
      if (entry?.lastStatus === ANSWERED) return ANSWERED;
      return deps.tasks.currentStatus(id, recorded);
    },
    submit: async (claim) => {
      const sent = await sendScore(deps, checked, claim, identity);
      answer.submission = sent.submission;
      return sent.started;
    },
  });
  if (answer.submission && !started.joined) return answer.submission;
  const entry = await engine.find(READING_SCORE_SERVICE, started.id);
  const flags = { resumed: started.resumed, joined: started.joined };
  if (started.status === ANSWERED && entry?.data?.result) {
    return { kind: 'result', result: entry.data.result as ReadingScoreResult, ...flags };
  }
  const statusPath =
    typeof entry?.data?.statusPath === 'string' ? entry.data.statusPath : readingTaskPath(started.id);
  return { kind: 'queued', taskId: started.id, statusPath, ...flags };
}

/**
 * The paid POST, once the request is claimed. A queued answer records its status path; an answer given at
 * once has no task to come back to, so the answer itself is what is recorded.
 */
async function sendScore(
  deps: ReadingScoreDeps,
  checked: CheckedRequest,
  claim: StartJobContext,
  identity: Record<string, unknown>,
): Promise<{ started: { id: string; status: string }; submission: ReadingScoreSubmission }> {
  const { student, reference } = checked;
  const send = (studentUpload: OpenedFile, referenceUpload: OpenedFile | undefined) =>
    postScore(deps.http, { checked, studentUpload, referenceUpload, signal: claim.signal });
  const response = await student.file.use((studentUpload) =>
    reference
      ? reference.file.use((referenceUpload) => send(studentUpload, referenceUpload))
      : send(studentUpload, undefined),
  );
  const queued = ReadingScoreQueued.safeParse(response.data);
  if (queued.success) {
    await claim.save({ data: { statusPath: queued.data.statusPath } });
    return {
      started: { id: queued.data.taskId, status: 'PENDING' },
      submission: { kind: 'queued', ...queued.data, resumed: false, joined: false },
    };
  }
  const result = response.data as ReadingScoreResult;
  const id = `answered-${fingerprint({ identity, at: Date.now() }).slice(0, 24)}`;
  await claim.save({ data: { result } });
  return {
    started: { id, status: ANSWERED },
    submission: { kind: 'result', result, resumed: false, joined: false },
  };
}

function postScore(
  http: HttpClient,
  post: {
    checked: CheckedRequest;
    studentUpload: OpenedFile;
    referenceUpload: OpenedFile | undefined;
    signal: AbortSignal;
  },
) {
  const { request, fields, student, reference } = post.checked;
  const { referenceUpload } = post;
  return http.request({
    method: 'POST',
    path: request.legacyRoute ? LEGACY_READING_SCORE_API_PATH : READING_SCORE_API_PATH,
    // Rebuilt from the same descriptors for a permitted retry, never from the paths.
    multipart: () =>
      createMultipartFileBody({
        field: 'student_audio',
        file: post.studentUpload,
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
    signal: post.signal,
    maxRetries: request.maxRetries,
  });
}
