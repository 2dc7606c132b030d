/** `@polymodal/core/streaming`: the streaming-recognition WebSocket session. */
export { createStreamingSession } from './streaming/create-streaming-session.js';
export type { StreamingSession } from './streaming/streaming-session-types.js';
