export * from './create-remote-inputs.js';
export * from './download-media.js';
export * from './fetch-remote-input.js';
