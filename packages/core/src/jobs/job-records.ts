/**
 * Recording: what the engine writes to the ledger about a job and how it copes when the ledger cannot
 * answer. A status write that fails is tried once more and then logged, never thrown: the platform's answer
 * matters more than its record. A claim's write is the exception (`refusal`): without it a repeat could pay
 * twice, so the paid request is refused. Each distinct ledger problem is logged once.
 */
import { LedgerError, PolymodalError } from '../errors/polymodal-error.js';
import type { JobLedger, LedgerEntry, LedgerPatch } from '../ledger/create-job-ledger.js';
import type { SleepFunction } from '../util/sleep.js';
import type { JobEngineLogger } from './job-engine.js';
import type { JobRef, ReadSchedule } from './read-schedule.js';

/** How often a ledger write of a job's state is tried, and the pause between tries. */
const RECORD_ATTEMPTS = 2;
const RECORD_RETRY_MS = 100;
/** A job the ledger does not hold is looked up again after this long (another process may record it). */
const UNRECORDED_MEMORY_MS = 60_000;

export interface JobRecordsOptions {
  ledger: JobLedger | undefined;
  schedule: ReadSchedule;
  log: JobEngineLogger;
  now: () => number;
  sleep: SleepFunction;
}

export class JobRecords {
  /** Jobs the ledger does not hold (started by another installation), so that polling them does not search it each time. */
  private readonly unrecorded = new Map<string, number>();
  private readonly reported = new Set<string>();

  constructor(private readonly options: JobRecordsOptions) {}

  /** Logs a ledger problem once per distinct reason, so a full disk does not flood the log. */
  warn(message: string): void {
    if (this.reported.has(message)) return;
    this.reported.add(message);
    this.options.log.warn(message);
  }

  /** The ledger entry of a job, if this installation recorded it; a ledger that cannot answer is logged. */
  async find(service: string, id: string): Promise<LedgerEntry | undefined> {
    const { ledger, now } = this.options;
    if (!ledger) return undefined;
    const key = `${service}\n${id}`;
    const missingSince = this.unrecorded.get(key);
    if (missingSince !== undefined && now() - missingSince < UNRECORDED_MEMORY_MS) return undefined;
    try {
      const entry = await ledger.findById(service, id);
      if (entry) this.unrecorded.delete(key);
      else this.unrecorded.set(key, now());
      return entry;
    } catch (error) {
      this.warn(`could not read the job ledger at ${ledger.location}: ${describeError(error)}`);
      return undefined;
    }
  }

  /**
   * Writes what is known of a job; a failure is logged, never thrown. Tried twice: a read that changed the
   * job is written once (and the last one of a finished job never again), so a write lost to a busy lock
   * would leave the ledger behind the platform for good.
   */
  async record(service: string, id: string, patch: LedgerPatch): Promise<void> {
    const { ledger, schedule, sleep } = this.options;
    if (!ledger) return;
    const job: JobRef = { service, id };
    for (let attempt = 1; ; attempt++) {
      try {
        const written = await ledger.updateById(service, id, patch);
        if (written?.id === id) schedule.rememberEntry(job, written);
        else schedule.forgetEntry(job);
        return;
      } catch (error) {
        schedule.forgetEntry(job);
        if (attempt < RECORD_ATTEMPTS) {
          await sleep(RECORD_RETRY_MS).catch(() => undefined);
          continue;
        }
        this.warn(`could not update the job ledger at ${ledger.location}: ${describeError(error)}`);
        return;
      }
    }
  }

  /** The error that refuses a submission whose claim could not be written (a refusal of ours passes as is). */
  refusal(error: unknown): unknown {
    if (PolymodalError.isInstance(error) && error.kind === 'validation') return error;
    const location = this.options.ledger?.location ?? '(none)';
    return new LedgerError(
      `The job ledger at ${location} could not record this submission (${describeError(error)}), so it was ` +
        'not sent: without a record, a repeat could pay twice. Fix the job ledger (the state directory, ' +
        'POLYMODAL_STATE_DIR, or the database, POLYMODAL_DATABASE_URL) and try again.',
      { location, cause: error },
    );
  }
}

export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
