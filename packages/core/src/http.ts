/** `@polymodal/core/http`: the one HTTP chokepoint the clients share (retries, timeouts, error mapping). */
export { createHttpClient, type HttpClient, type HttpClientOptions } from './http/http-client.js';
