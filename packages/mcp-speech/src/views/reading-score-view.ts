/**
 * The reading score view: the reference text word by word, each word coloured and labelled by what the
 * scoring found (correct, missing, substituted, extra), the scores, and what to practise; while a queued
 * score runs, its state and "Check again" (get_reading_score through the host). Built from
 * views/reading-score/ into dist/views/reading-score.html (scripts/build-views.mjs); it loads nothing from
 * any origin, so it needs no CSP origin.
 */
import { builtViewFiles, defineView } from '@polymodal/mcp-common';

export const READING_SCORE_VIEW = defineView({
  name: 'reading-score',
  title: 'Reading score',
  description: "A Thai reading's scores, with the reference text coloured word by word by what was read.",
  files: builtViewFiles(import.meta.url, 'reading-score.html'),
});
