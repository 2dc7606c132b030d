/**
 * `@polymodal/core/constants`: the services' constants and small rules without their zod schemas (the
 * contracts subpath has both): languages, models, states, limits, the meeting cost rule, the service table
 * (ledger names, paths, metrics labels, intervals, the tools that continue a job). Code that only needs
 * these (an MCP server describing its tools) does not build the contracts' schemas or load the clients.
 */
export * from './contracts/flashcards-constants.js';
export * from './contracts/meeting-constants.js';
export * from './contracts/speech-synthesis-constants.js';
export * from './contracts/video-constants.js';
export * from './services/service-table.js';
export { READING_SCORE_MAX_UPLOAD_BYTES } from './reading-score/reading-score-limits.js';
export { inputSlots } from './video/validate-catalog-request.js';
export { videoProgressPercent } from './video/video-progress.js';
