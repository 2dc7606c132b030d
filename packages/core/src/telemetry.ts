/** `@polymodal/core/telemetry`: the events observer's types and the service names it reports. */
export * from './telemetry/index.js';
