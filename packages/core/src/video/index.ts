export * from './create-catalog-video-client.js';
export * from './create-image-to-video-client.js';
export * from './validate-catalog-request.js';
export * from './video-job-client.js';
