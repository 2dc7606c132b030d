export * from './create-metrics.js';
export * from './instrument-tools.js';
export * from './metrics-access.js';
export * from './process-metrics-sink.js';
