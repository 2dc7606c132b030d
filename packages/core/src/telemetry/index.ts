export * from './platform-service-of.js';
export * from './polymodal-events.js';
