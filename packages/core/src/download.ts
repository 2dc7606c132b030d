/** `@polymodal/core/download`: remote inputs fetched to local files, every hop to a public address only. */
export type { RemoteInputs, RemoteInputsOptions } from './download/create-remote-inputs.js';
export { createRemoteInputs } from './download/create-remote-inputs.js';
export { DEFAULT_DOWNLOAD_LIMITS } from './download/download-media.js';
