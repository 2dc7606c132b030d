/**
 * The HTTP service's metrics (`GET /metrics`, Prometheus text format, prom-client): tool calls by tool and
 * outcome, their latency, jobs started/resumed/joined/duplicates prevented, the platform's answers by
 * status class (429 and 5xx apart) and status reads of jobs, plus prom-client's process metrics.
 *
 * One registry per process (`processMetrics()`), not prom-client's global default one: a library that
 * registers there, or a second copy of prom-client, would collide with it. Every tenant's context and every
 * server in the process reports here. Labels hold only bounded names (a tool, an outcome, a service, a
 * status class): never a token, a key, a path, a job id or a tenant id, for privacy and because each
 * distinct value is a series Prometheus keeps.
 *
 * Polls per job: a counter of status reads per service (`polymodal_job_polls_total`), read as
 * `rate(polymodal_job_polls_total[1h]) / rate(polymodal_jobs_total{event="started"}[1h])`. A histogram of
 * reads per finished job would need every job id held in memory until the job ends, and would split one
 * job's reads between replicas and restarts (each would observe a part); the counters add up correctly
 * across replicas.
 */
import type { JobReadEvent, JobStartEvent, PlatformResponseEvent, PolymodalEvents } from '@polymodal/core';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import { attachProcessMetrics } from './process-metrics-sink.js';

/** How a tool call ended, as counted: `pending` answered with a handle (done: false). */
export type ToolCallOutcome = 'ok' | 'error' | 'pending' | 'failed' | 'cancelled';

export interface PolymodalMetrics {
  readonly registry: Registry;
  /** Feeds the platform client's telemetry hooks into these metrics. */
  readonly events: PolymodalEvents;
  toolCall(tool: string, outcome: ToolCallOutcome, seconds: number): void;
  /** The exposition text and its content type. */
  render(): Promise<{ contentType: string; body: string }>;
}

/** Tool latencies: quick reads to calls that wait out their 50 s deadline. */
const DURATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 45, 60];

/** A fresh set of metrics on its own registry (tests, or an embedder that wants its own). */
export function createMetrics(options: { processMetrics?: boolean } = {}): PolymodalMetrics {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });
  const toolCalls = new Counter({
    name: 'polymodal_tool_calls_total',
    help: 'MCP tool calls by tool and outcome (ok, error, pending: answered with a job handle, failed or cancelled job).',
    labelNames: ['tool', 'outcome'] as const,
    registers: [registry],
  });
  const toolDuration = new Histogram({
    name: 'polymodal_tool_call_duration_seconds',
    help: 'Time from a tool call to its answer, by tool.',
    labelNames: ['tool'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const jobs = new Counter({
    name: 'polymodal_jobs_total',
    help: 'Job starts by service and how they ended: started (paid), resumed, joined (single flight or another process), duplicate_prevented (an uncertain resubmission refused).',
    labelNames: ['service', 'event'] as const,
    registers: [registry],
  });
  const responses = new Counter({
    name: 'polymodal_platform_responses_total',
    help: 'Answers of the platform by service and status class (2xx, 3xx, 4xx, 429, 5xx); every attempt counts, retries included.',
    labelNames: ['service', 'status_class'] as const,
    registers: [registry],
  });
  const polls = new Counter({
    name: 'polymodal_job_polls_total',
    help: 'Status reads of jobs sent to the platform, by service; divided by started jobs it gives polls per job.',
    labelNames: ['service'] as const,
    registers: [registry],
  });

  return {
    registry,
    events: {
      platformResponse: (event: PlatformResponseEvent) =>
        responses.inc({ service: event.service, status_class: statusClass(event.status) }),
      jobStart: (event: JobStartEvent) => jobs.inc({ service: event.service, event: event.kind }),
      jobRead: (event: JobReadEvent) => polls.inc({ service: event.service }),
    },
    toolCall(tool, outcome, seconds) {
      toolCalls.inc({ tool, outcome });
      toolDuration.observe({ tool }, seconds);
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

let shared: PolymodalMetrics | undefined;

/**
 * The process's metrics, created on first use; what `/metrics` serves. From then on, servers and contexts
 * built without metrics of their own report here (see `processMetricsSink`).
 */
export function processMetrics(): PolymodalMetrics {
  if (!shared) {
    shared = createMetrics();
    attachProcessMetrics(shared);
  }
  return shared;
}

/** 429 apart from the other 4xx: it is the platform pacing the key, not a mistake of the request. */
export function statusClass(status: number): string {
  if (status === 429) return '429';
  if (status >= 100 && status < 600) return `${Math.floor(status / 100)}xx`;
  return 'other';
}
