export * from './create-multipart-file-body.js';
export * from './inspect-recording.js';
export * from './recording-formats.js';
