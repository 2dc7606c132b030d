export * from './check-image-data-url.js';
export * from './decode-image-header.js';
export * from './read-media-as-data-url.js';
export * from './sniff-media-type.js';
