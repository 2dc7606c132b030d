/** `@polymodal/core/files`: confined file access, opened-file checks, safe names and atomic writes. */
export * from './files/index.js';
