/**
 * The file extensions of the recordings the services take (meeting, reading score, the Thai recogniser
 * through ffmpeg): what a server offers when a person completes a recording's path. Each has its container
 * and magic bytes in `media/recording-formats.ts`, which is typed against this list.
 */
export const RECORDING_EXTENSIONS = [
  '.wav',
  '.mp3',
  '.mp4',
  '.mov',
  '.m4a',
  '.avi',
  '.mkv',
  '.webm',
  '.m4v',
  '.mpeg',
  '.mpg',
  '.ogg',
  '.flac',
] as const;

export type RecordingExtension = (typeof RECORDING_EXTENSIONS)[number];
