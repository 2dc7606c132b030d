/**
 * The platform scopes jobs by key: whoever holds a key may read, cancel, change or delete every job made
 * with it. Tenants of one server that share a key (no `apiKey` of their own in the tenants file, the same
 * `apiKey` as another tenant, or OAuth's any-tenant mode on POLYMODAL_API_KEY) would therefore reach each
 * other's jobs by id. For them this wraps the platform client so that a job is reached by id only when the
 * tenant's own job ledger holds it: any other id is refused as not found before a request is sent, with the
 * same answer whether the job exists under the key or not, and the account's list of meetings shows only
 * the tenant's own. A tenant with a key of its own is not wrapped (`isShared` false): the platform keeps
 * its jobs apart, and it may reach jobs made with its key elsewhere.
 *
 * Custom voices are the key's too: a speech request cloning a registered voice (`clone_audio`, a platform
 * path rather than an https URL) is sent only when the tenant's ledger holds that voice's registration, so a
 * tenant never speaks in a voice another tenant registered.
 *
 * Every method of every job client is named in a table below, typed against the client's interface, so a
 * method added to a client does not compile here until someone says whether it takes a job id.
 *
 * A job id found in the tenant's ledger is remembered as the tenant's (up to OWNED_MEMORY_MAX ids), so a
 * status read of it does not look it up again (issue 24: the look-up was one of a running read's two
 * ledger reads). What is remembered cannot go stale: the ledger never removes an entry, and a job id names
 * a job made by the tenant whose ledger recorded it, which stays that tenant's even once a replacing job
 * takes its entry. Ids not found are never remembered: a job recorded a moment later is reached at once.
 */
import type {
  CatalogVideoClient,
  FlashcardsClient,
  ImageToVideoClient,
  MeetingClient,
  Polymodal,
  ReadingScoreClient,
  SpeechClient,
} from '@polymodal/core';
import {
  CATALOG_VIDEO_SERVICE,
  CUSTOM_VOICE_SERVICE,
  FLASHCARDS_SERVICE,
  IMAGE_TO_VIDEO_SERVICE,
  MEETING_SERVICE,
  READING_SCORE_SERVICE,
  SPEECH_SYNTHESIS_SERVICE,
  SPEECH_TEXT_SERVICE,
} from '@polymodal/core/constants';
import { NotFoundError, ValidationError } from '@polymodal/core/errors';
import type { JobLedger } from '@polymodal/core/ledger';

/**
 * `byId`: the first argument is a job id (or a path ending in one); `list`: the account's jobs; `voice`: the
 * first argument is a speech request that may clone a registered voice; `textJob`: the first argument is
 * the handle of a speech-text job, which may run its recorded request (and clone its voice) again; `free`:
 * none of these.
 */
type MethodScope = 'byId' | 'list' | 'voice' | 'textJob' | 'free';

const MEETING_METHODS = {
  upload: 'free',
  create: 'free',
  list: 'list',
  retrieve: 'byId',
  cancel: 'byId',
  retry: 'byId',
  resummarize: 'byId',
  retranslate: 'byId',
  update: 'byId',
  delete: 'byId',
  submit: 'free',
  poll: 'byId',
  wait: 'byId',
  summarize: 'free',
} as const satisfies Record<keyof MeetingClient, MethodScope>;

const CATALOG_VIDEO_METHODS = {
  models: 'free',
  validate: 'free',
  submit: 'free',
  retrieve: 'byId',
  poll: 'byId',
  wait: 'byId',
} as const satisfies Record<keyof CatalogVideoClient, MethodScope>;

const IMAGE_TO_VIDEO_METHODS = {
  submit: 'free',
  retrieve: 'byId',
  poll: 'byId',
  wait: 'byId',
} as const satisfies Record<keyof ImageToVideoClient, MethodScope>;

const FLASHCARDS_METHODS = {
  startFromFile: 'free',
  startFromUrl: 'free',
  retrieve: 'byId',
  poll: 'byId',
  wait: 'byId',
  limits: 'free',
} as const satisfies Record<keyof FlashcardsClient, MethodScope>;

const SPEECH_METHODS = {
  // Checks a request, sends nothing.
  validate: 'free',
  submit: 'voice',
  retrieve: 'byId',
  poll: 'byId',
  wait: 'byId',
  synthesize: 'voice',
  synthesizeText: 'voice',
  // Splits a text into its parts and their fingerprints: no platform request, no job id.
  textParts: 'free',
  // Runs synthesizeText inside the client, where this proxy does not see it: checked here instead.
  startTextJob: 'voice',
  // Reads the client's own ledger, which is the tenant's; a job it resumes runs its recorded request.
  retrieveTextJob: 'textJob',
  registerVoice: 'free',
  listVoices: 'free',
  stats: 'free',
  governor: 'free',
} as const satisfies Record<keyof SpeechClient, MethodScope>;

const READING_SCORE_METHODS = {
  submit: 'free',
  retrieve: 'byId',
  poll: 'byId',
  wait: 'byId',
  score: 'free',
} as const satisfies Record<keyof ReadingScoreClient, MethodScope>;

export interface ScopeJobsOptions {
  /** The tenant's own ledger. */
  ledger: JobLedger;
  /** Read on every call, so that a reload of the tenants file that shares or unshares the key applies at once. */
  isShared: () => boolean;
}

/** The client the tenant's tools use: `polymodal` itself, with its job clients scoped while `isShared()`. */
export function scopeJobsToLedger(polymodal: Polymodal, options: ScopeJobsOptions): Polymodal {
  const { ledger, isShared } = options;
  const owned = ownedJobs(ledger);
  const scope = <T extends object>(client: T, service: string, methods: Record<keyof T, MethodScope>): T =>
    new Proxy(client, {
      get(target, property, receiver) {
        const value: unknown = Reflect.get(target, property, receiver);
        const kind = methods[property as keyof T];
        if (typeof value !== 'function' || kind === undefined || kind === 'free') return value;
        const method = value as (...args: unknown[]) => Promise<unknown>;
        if (kind === 'voice' || kind === 'textJob') {
          return async (...args: unknown[]) => {
            if (isShared()) {
              await assertOwnVoice(
                ledger,
                kind === 'voice' ? args[0] : await recordedSpeech(ledger, args[0]),
              );
            }
            return method.apply(target, args);
          };
        }
        if (kind === 'list') {
          return async (...args: unknown[]) => {
            const list = await method.apply(target, args);
            return isShared() ? ownJobsOnly(list, service, owned) : list;
          };
        }
        return async (...args: unknown[]) => {
          if (isShared()) await assertOwnJob(owned, service, args[0]);
          return method.apply(target, args);
        };
      },
    });
  // Every member named, no spread: a client added to Polymodal fails to compile here until it is scoped
  // (or said to need none), instead of reaching other tenants' jobs unscoped.
  const scoped: Polymodal = {
    meeting: scope(polymodal.meeting, MEETING_SERVICE, MEETING_METHODS),
    catalogVideo: scope(polymodal.catalogVideo, CATALOG_VIDEO_SERVICE, CATALOG_VIDEO_METHODS),
    imageToVideo: scope(polymodal.imageToVideo, IMAGE_TO_VIDEO_SERVICE, IMAGE_TO_VIDEO_METHODS),
    flashcards: scope(polymodal.flashcards, FLASHCARDS_SERVICE, FLASHCARDS_METHODS),
    speech: scope(polymodal.speech, SPEECH_SYNTHESIS_SERVICE, SPEECH_METHODS),
    readingScore: scope(polymodal.readingScore, READING_SCORE_SERVICE, READING_SCORE_METHODS),
    // No job ids: a completion and a recognition session answer the caller alone.
    llm: polymodal.llm,
    thaiAsr: polymodal.thaiAsr,
    // Downloads of URLs a job of this tenant's answered; the ledger and engine are the tenant's own.
    media: polymodal.media,
    ledger: polymodal.ledger,
    engine: polymodal.engine,
    config: polymodal.config,
    close: () => polymodal.close(),
  };
  return scoped;
}

/** How many job ids `ownedJobs` remembers; past it, the least recently used is forgotten. */
const OWNED_MEMORY_MAX = 10_000;

type OwnsJob = (service: string, id: string) => Promise<boolean>;

/** Whether the tenant's ledger holds a job id, a found one remembered (see the header). */
function ownedJobs(ledger: JobLedger): OwnsJob {
  const remembered = new Set<string>();
  return async (service, id) => {
    const key = `${service}\n${id}`;
    if (remembered.delete(key)) {
      remembered.add(key);
      return true;
    }
    if (!(await ledger.findById(service, id))) return false;
    remembered.add(key);
    if (remembered.size > OWNED_MEMORY_MAX) remembered.delete(remembered.values().next().value as string);
    return true;
  };
}

async function assertOwnJob(owns: OwnsJob, service: string, reference: unknown): Promise<void> {
  const id = jobIdOf(reference);
  if (id !== undefined && (await owns(service, id))) return;
  const error = new NotFoundError({ status: 404, method: 'NONE', url: `${service} job`, body: null });
  // Not the platform's words: nothing was sent. The agent sees what a wrong id gets (see `toolError`).
  error.message = `${service} job ${String(reference)} is not in this tenant's job ledger: refused without a platform request (the key is shared with other tenants).`;
  throw error;
}

/** A request that clones a voice names one this tenant registered (an https URL is the caller's own). */
async function assertOwnVoice(ledger: JobLedger, request: unknown): Promise<void> {
  const clone = (request as { clone_audio?: unknown } | undefined)?.clone_audio;
  if (typeof clone !== 'string' || /^https:\/\//i.test(clone)) return;
  const voices = await ledger.list({ service: CUSTOM_VOICE_SERVICE });
  const registered = voices.some(
    (entry) => (entry.request?.voice as { clone_audio?: unknown } | undefined)?.clone_audio === clone,
  );
  if (registered) return;
  throw new ValidationError(
    `voice ${clone} was not registered by this tenant (register_voice), so it is not used: the key is shared with other tenants. Nothing was sent.`,
    [{ path: 'voice', message: 'not a voice of this tenant' }],
  );
}

/** The speech request a speech-text job of the tenant's ledger runs, if it holds that job. */
async function recordedSpeech(ledger: JobLedger, id: unknown): Promise<unknown> {
  if (typeof id !== 'string') return undefined;
  const entry = await ledger.findById(SPEECH_TEXT_SERVICE, id);
  return (entry?.request as { speech?: unknown } | undefined)?.speech;
}

/** A job id, or the last segment of a status path (reading score: `/…/task/<id>`). */
function jobIdOf(reference: unknown): string | undefined {
  if (typeof reference !== 'string' || reference === '') return undefined;
  if (!reference.startsWith('/')) return reference;
  const last = reference.split('/').pop();
  return last && last !== '..' && last !== '.' ? last : undefined;
}

async function ownJobsOnly(list: unknown, service: string, owns: OwnsJob): Promise<unknown> {
  if (typeof list !== 'object' || list === null || !Array.isArray((list as { jobs?: unknown }).jobs)) {
    return list;
  }
  const jobs = (list as { jobs: { id?: unknown }[] }).jobs;
  const own = await Promise.all(
    jobs.map(async (job) => typeof job.id === 'string' && (await owns(service, job.id))),
  );
  return { ...list, jobs: jobs.filter((_job, index) => own[index]) };
}
