/** `@polymodal/core/http`: the one HTTP chokepoint the clients share (retries, timeouts, error mapping). */

export { type CallOptions, requestOptionsOf, startCall } from './http/call-options.js';
export { createHttpClient, type HttpClient, type HttpClientOptions } from './http/http-client.js';
