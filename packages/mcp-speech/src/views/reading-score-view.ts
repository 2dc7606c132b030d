/**
 * The reading score view: the reference text word by word, each word coloured and labelled by what the
 * scoring found (correct, missing, substituted, extra), the scores, and what to practise; while a queued
 * score runs, its state and "Check again" (get_reading_score through the host). Built from
 * views/reading-score/ into dist/views/reading-score.html (scripts/build-views.mjs); it loads nothing from
 * any origin, so it needs no CSP origin.
 */
import { defineView } from '@polymodal/mcp-common';

const FILE = 'reading-score.html';

export const READING_SCORE_VIEW = defineView({
  name: 'reading-score',
  title: 'Reading score',
  description: "A Thai reading's scores, with the reference text coloured word by word by what was read.",
  files: [
    // dist/main.js or dist/server.js; a chunk in dist/bin/; the sources (tests) with the package built.
    new URL(`./views/${FILE}`, import.meta.url),
    new URL(`../views/${FILE}`, import.meta.url),
    new URL(`../../dist/views/${FILE}`, import.meta.url),
  ],
});
