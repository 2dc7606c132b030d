export * from './link-output-resources.js';
export * from './output-link.js';
export * from './output-resources.js';
