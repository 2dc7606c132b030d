/**
 * `@polymodal/core/media`: what a file is by its first bytes (images, video containers, recordings), data
 * URLs, and the streamed multipart bodies of uploads.
 */
export * from './media/index.js';
export * from './upload/index.js';
