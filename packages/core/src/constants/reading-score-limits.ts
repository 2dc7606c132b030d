/**
 * Largest student or reference recording sent. The spec shows no limit ("not shown"), so this one is ours
 * and conservative: a read-aloud attempt is short (50 MiB is 27 minutes of 16 kHz mono WAV, 5 minutes of
 * CD-quality stereo), and a file of gigabytes must never be streamed to the platform to be refused there.
 * Kept apart from the client, so that a tool checking a file's size does not load the client.
 */
export const READING_SCORE_MAX_UPLOAD_BYTES = 50 * 1024 * 1024;

/**
 * The extensions of the recordings a reading score takes: the audio containers it recognises by content
 * (WAV, MP3, M4A, OGG, WebM, FLAC), as a path completion offers them.
 */
export const READING_AUDIO_EXTENSIONS = ['.wav', '.mp3', '.m4a', '.ogg', '.webm', '.flac'] as const;
