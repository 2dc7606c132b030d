/**
 * `@polymodal/core/net`: public-address checks (every hop of a download), the public-only connector and
 * lookup, and the downloads built on them (media results, remote inputs).
 */
export * from './download/index.js';
export * from './net/index.js';
