export * from './read-media-as-data-url.js';
export * from './sniff-media-type.js';
