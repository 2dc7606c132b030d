/** `@polymodal/core/files`: confined file access and the checks of an opened file. */
export { createFileAccess, type FileAccess } from './files/create-file-access.js';
export { type OpenedFile, openRegularFile, openVerifiedFile } from './files/open-verified-file.js';
export { OUTPUT_DIR_VARIABLE } from './files/readable-dirs.js';
