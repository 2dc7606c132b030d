export * from './create-metrics.js';
export * from './metrics-access.js';
export * from './process-metrics-sink.js';
export * from './tool-call-outcome.js';
