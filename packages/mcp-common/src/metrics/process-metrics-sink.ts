/**
 * Where servers and contexts report when they are given no metrics: a forwarder to the process's metrics
 * (`processMetrics()`) once something has created them, and to nothing before. The HTTP runner creates them
 * before it serves, so every call and platform answer it handles is counted; a bin over stdio, which serves
 * no `/metrics`, never creates them and so never loads prom-client (start-up time and memory, issue 14).
 * An embedder that serves `processMetrics()` itself counts from its first call of it.
 */
import type { PolymodalEvents } from '@polymodal/core';
import type { PolymodalMetrics } from './create-metrics.js';

/** What a server or a context reports into: tool calls and the platform client's events. */
export type MetricsSink = Pick<PolymodalMetrics, 'events' | 'toolCall'>;

let target: PolymodalMetrics | undefined;

/** Called by `processMetrics()` when it creates the process's metrics. */
export function attachProcessMetrics(metrics: PolymodalMetrics): void {
  target = metrics;
}

const events: Required<PolymodalEvents> = {
  platformResponse: (event) => target?.events.platformResponse?.(event),
  jobStart: (event) => target?.events.jobStart?.(event),
  jobRead: (event) => target?.events.jobRead?.(event),
};

/** The process's metrics as seen at each report, without loading them. */
export const processMetricsSink: MetricsSink = {
  events,
  toolCall: (tool, outcome, seconds) => target?.toolCall(tool, outcome, seconds),
};
