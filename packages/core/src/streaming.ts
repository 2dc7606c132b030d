/** `@polymodal/core/streaming`: the streaming-recognition WebSocket session. */
export * from './streaming/index.js';
