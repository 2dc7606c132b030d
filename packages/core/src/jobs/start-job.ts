/**
 * Starting a job: identical starts in this process join the one in flight (single flight); the one that
 * runs claims the submission in the ledger and submits (`runSubmission`). A caller whose deadline comes
 * first gets SubmissionInProgressError while the submission goes on, to be joined by the next identical
 * call. Every start is told to the events: started, resumed, joined, or a duplicate prevented.
 */
import { SubmissionInProgressError, UncertainSubmissionError } from '../errors/polymodal-error.js';
import type { PolymodalEvents } from '../telemetry/polymodal-events.js';
import type { StartedJob, StartJobOptions } from './job-engine.js';
import { runSubmission, type SubmissionParts } from './run-submission.js';
import type { SingleFlight } from './single-flight.js';

export interface StartJobParts extends SubmissionParts {
  flights: SingleFlight;
  events: Required<PolymodalEvents>;
  now: () => number;
}

export async function startJob(parts: StartJobParts, options: StartJobOptions): Promise<StartedJob> {
  const { flights, events, now } = parts;
  const key = `start\n${options.service}\n${options.fingerprint}${options.forceNew ? '\nnew' : ''}`;
  const joining = flights.has(key);
  const since = new Date(now()).toISOString();
  const flight = flights.run(key, options.signal, (shared) => runSubmission(parts, options, shared));
  let started: StartedJob;
  try {
    // Not aborted at the deadline: the submission goes on, and the next identical call joins it.
    started = await withinDeadline(
      flight,
      options.deadline,
      () => new SubmissionInProgressError({ service: options.service, since }),
    );
  } catch (error) {
    if (UncertainSubmissionError.isInstance(error)) {
      events.jobStart({ service: options.service, kind: 'duplicate_prevented' });
    }
    throw error;
  }
  const joined = joining || started.joined;
  events.jobStart({
    service: options.service,
    kind: joined ? 'joined' : started.resumed ? 'resumed' : 'started',
  });
  return joining ? { ...started, joined: true } : started;
}

/** `promise`, or the error `late()` gives when `deadline` (epoch ms) comes first. */
function withinDeadline<T>(
  promise: Promise<T>,
  deadline: number | undefined,
  late: () => unknown,
): Promise<T> {
  if (deadline === undefined) return promise;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(late()), Math.max(0, deadline - Date.now()));
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}
