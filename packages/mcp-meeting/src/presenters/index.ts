export * from './meeting-schemas.js';
export * from './present-job.js';
export * from './render-export.js';
