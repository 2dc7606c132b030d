export * from './create-multipart-file-body.js';
