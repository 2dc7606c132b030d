export * from './check-image-data-url.js';
export * from './decode-image-header.js';
export * from './inspect-recording.js';
export * from './read-media-as-data-url.js';
export * from './recording-formats.js';
export * from './sniff-media-type.js';
