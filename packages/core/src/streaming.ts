/** `@polymodal/core/streaming`: the streaming-recognition WebSocket session. */
export { createStreamingSession, type StreamingSession } from './streaming/create-streaming-session.js';
