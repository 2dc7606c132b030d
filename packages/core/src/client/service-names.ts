/**
 * The services' names as the job ledger records them (and metrics label them), apart from the clients:
 * code that only needs a name (an MCP server's tool list, `list_jobs`) does not load a client, its
 * contracts and its HTTP code with it. Each client module exports its own name too.
 */
export const MEETING_SERVICE = 'meeting';
/** One platform speech task: a part of at most 200 characters. */
export const SPEECH_SYNTHESIS_SERVICE = 'speech-synthesis';
/**
 * A synthesis of a text of any length: one job whose entry names its parts (`speech-synthesis` entries)
 * beneath it, so that it is resumed, listed and followed as one job in any process.
 */
export const SPEECH_TEXT_SERVICE = 'speech-text';
export const CUSTOM_VOICE_SERVICE = 'custom-voice';
export const READING_SCORE_SERVICE = 'reading-score';
export const FLASHCARDS_SERVICE = 'flashcards';
export const IMAGE_TO_VIDEO_SERVICE = 'image-to-video';
export const CATALOG_VIDEO_SERVICE = 'catalog-video';
