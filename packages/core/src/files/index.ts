export * from './create-file-access.js';
export {
  type OpenedFile,
  type OpenVerifiedFileOptions,
  openRegularFile,
  openVerifiedFile,
} from './open-verified-file.js';
export * from './sanitize-file-name.js';
export * from './share-opened-file.js';
export * from './write-file-atomic.js';
