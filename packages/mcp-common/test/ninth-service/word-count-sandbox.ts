/**
 * The toy ninth service in the sandbox: the platform counts the words of a text as a paid async job.
 * `POST /api/word-count/v1/jobs {text}` answers `202 {id, status}`; `GET /api/word-count/v1/jobs/{id}` answers
 * `{id, status: queued|running|done|failed, progress, words?, error?}`. Written as the sandbox's own services
 * are (src/services/*): routes on the shared router, the key checked by the shared authenticator, a job's
 * state computed from the sandbox clock on every look (a held clock holds it), and counters for tests.
 * Used only by the tests of `docs/extending.md`; the platform has no such service.
 */
import {
  FAIL_MARKER,
  HttpError,
  json,
  type RequestContext,
  type SandboxResponse,
  type SandboxService,
  type ServiceContext,
  scaled,
  timelinePosition,
} from '@polymodal/sandbox';
import { WORD_COUNT_API_PATH, WORD_COUNT_MAX_CHARACTERS } from './word-count-job.js';

/** Jobs created, per user id: what a test counts to prove that a text was paid for once. */
export const WORD_COUNT_COUNTER = 'wordCountJobs';

interface StoredJob {
  id: string;
  userId: string;
  words: number;
  createdAt: number;
  /** A text with `[sandbox:fail]` in it fails, as in the sandbox's media services. */
  fails: boolean;
}

const countWords = (text: string) => text.split(/\s+/).filter((word) => word !== '').length;

export function createWordCountService(context: ServiceContext): SandboxService {
  const { clock, counters, speed } = context;
  const jobs = new Map<string, StoredJob>();
  let created = 0;

  // #region sandbox-timeline
  // 1 s queued, 4 s running, in real seconds divided by the speed; the clock decides where a job stands.
  const phases = [
    { name: 'queued', ms: scaled(1, speed) },
    { name: 'running', ms: scaled(4, speed) },
  ] as const;

  function view(job: StoredJob) {
    const at = timelinePosition(job.createdAt, phases, clock.now());
    if (!at.done) {
      const progress = at.phase === 'running' ? Math.floor(at.phaseFraction * 100) : 0;
      return { id: job.id, status: at.phase, progress };
    }
    return job.fails
      ? { id: job.id, status: 'failed', progress: 100, error: 'the text could not be read' }
      : { id: job.id, status: 'done', progress: 100, words: job.words };
  }
  // #endregion

  // #region sandbox-create
  async function create(request: RequestContext): Promise<SandboxResponse> {
    const { user } = request.authenticate(['x-api-key']);
    const body = await request.readJson();
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new HttpError(400, 'the request body must be a JSON object');
    }
    const { text, ...others } = body as Record<string, unknown>;
    const unknown = Object.keys(others);
    if (unknown.length > 0) throw new HttpError(400, `unknown fields ${unknown.join(', ')}; accepted: text`);
    if (typeof text !== 'string' || text.trim() === '') {
      throw new HttpError(400, 'text is required: a string with at least one word');
    }
    if (text.length > WORD_COUNT_MAX_CHARACTERS) {
      throw new HttpError(400, `text is longer than ${WORD_COUNT_MAX_CHARACTERS} characters`);
    }
    created += 1;
    const job = {
      id: `wc_${created}`,
      userId: user.id,
      words: countWords(text),
      createdAt: clock.now(),
      fails: text.includes(FAIL_MARKER),
    };
    jobs.set(job.id, job);
    counters.increment('jobsCreated', user.id);
    counters.increment(WORD_COUNT_COUNTER, user.id);
    return json(202, { id: job.id, status: 'queued' });
  }
  // #endregion

  function get(request: RequestContext): SandboxResponse {
    const { user } = request.authenticate(['x-api-key']);
    const job = jobs.get(request.params.id ?? '');
    // Another user's job is as unknown as a job that never was.
    if (!job || job.userId !== user.id) throw new HttpError(404, 'no such word-count job');
    return json(200, view(job));
  }

  // #region sandbox-routes
  return {
    name: 'word-count',
    register(router) {
      router.route('POST', `${WORD_COUNT_API_PATH}/jobs`, create);
      router.route('GET', `${WORD_COUNT_API_PATH}/jobs/:id`, get);
    },
    settle() {
      // Every state is computed from the clock on each look.
    },
    async reset() {
      jobs.clear();
    },
    async close() {
      jobs.clear();
    },
  };
  // #endregion
}
