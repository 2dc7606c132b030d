/**
 * Telemetry hooks of the client: an optional observer told about what operators count (platform answers
 * by status, jobs started, resumed or joined, duplicate submissions refused, status reads). Core knows no
 * metrics library; a server turns these calls into its metrics (mcp-common's `/metrics`).
 *
 * Events carry only bounded, non-secret values (a service name, a method, a status): never a key, a
 * path with ids, a job id or a tenant, so that whatever an observer does with them stays safe to export.
 * An observer that throws never breaks the request or the job it observes (see `guardEvents`).
 */
/** The methods the HTTP chokepoint sends: declared here, below http/, which imports the events. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One answer of the platform (every attempt, retries included; transport failures have none). */
export interface PlatformResponseEvent {
  /** The service the request went to (`meeting`, `speech`, … or `other`), from its path. */
  service: string;
  method: HttpMethod;
  /** The HTTP status: 429 and 5xx are the ones operators watch. */
  status: number;
}

/**
 * How a job start ended for one caller:
 * - `started`: a new submission was sent and the platform created the job (paid work);
 * - `resumed`: a job recorded in the ledger was returned, nothing was sent;
 * - `joined`: an identical submission in flight (in this process, or another process's claim) was joined;
 * - `duplicate_prevented`: the submission was refused because an earlier, interrupted attempt may already
 *   have created the job (`UncertainSubmissionError`), so sending it again could pay twice.
 */
export type JobStartKind = 'started' | 'resumed' | 'joined' | 'duplicate_prevented';

export interface JobStartEvent {
  /** The ledger's service name (`meeting`, `speech-synthesis`, …). */
  service: string;
  kind: JobStartKind;
}

/** One status read of a job sent to the platform (a poll, or a plain retrieve). */
export interface JobReadEvent {
  /** The ledger's service name. */
  service: string;
}

export interface PolymodalEvents {
  platformResponse?(event: PlatformResponseEvent): void;
  jobStart?(event: JobStartEvent): void;
  jobRead?(event: JobReadEvent): void;
}

/** Every hook present and none able to throw into the caller: an observer's fault is swallowed. */
export function guardEvents(events: PolymodalEvents | undefined): Required<PolymodalEvents> {
  const guard =
    <E>(hook: ((event: E) => void) | undefined) =>
    (event: E): void => {
      if (!hook) return;
      try {
        hook.call(events, event);
      } catch {
        // Telemetry must never change what the client does.
      }
    };
  return {
    platformResponse: guard(events?.platformResponse),
    jobStart: guard(events?.jobStart),
    jobRead: guard(events?.jobRead),
  };
}
