/**
 * A platform job in the terms every job shares, whatever its service: its status text, how far it is, and
 * once it stopped, how (succeeded, failed, cancelled) and why. Each service states these readings of its
 * job once (`defineJobKind`, a file per service here): the job resource polls by them, and the MCP servers'
 * long-job answers show their `view`. Builds no schema, so it is part of `@polymodal/core/views`.
 */

/** How a job stopped, once it has. */
export type JobOutcome = 'succeeded' | 'failed' | 'cancelled';

/** What an answer about a job needs to know, whatever the service. */
export interface JobView {
  status: string;
  /** 0..100 */
  progress?: number | undefined;
  /** Progress text; default "<STATUS> <n>%". */
  message?: string | undefined;
  /** Set once processing stopped. */
  outcome?: JobOutcome | undefined;
  /** The platform's reason for a failure. */
  error?: string | null | undefined;
}

/** One service's readings of a job it returned. */
export interface JobKind<T> {
  /** The job stopped: it changes no more, so a wait on it is over. */
  isDone(job: T): boolean;
  /** Its status as the service says it (the ledger records this). */
  status(job: T): string;
  progress(job: T): number | undefined;
  /** Progress text, for a service that has more to say than its status and percentage. */
  message?(job: T): string | undefined;
  /** How it stopped; undefined while it runs. */
  outcome(job: T): JobOutcome | undefined;
  /** The reason it failed, as text; null when there is none to give. */
  error(job: T): string | null;
}

export type DefinedJobKind<T> = JobKind<T> & { view(job: T): JobView };

/** A service's job kind with its view: the readings, put together the way every answer shows them. */
export function defineJobKind<T>(kind: JobKind<T>): DefinedJobKind<T> {
  return {
    ...kind,
    view: (job) => ({
      status: kind.status(job),
      progress: kind.progress(job),
      ...(kind.message ? { message: kind.message(job) } : {}),
      outcome: kind.outcome(job),
      error: kind.error(job),
    }),
  };
}
