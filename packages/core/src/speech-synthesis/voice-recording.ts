/**
 * The recording a custom voice is cloned from, checked on the opened file before anything is sent: a WAV by
 * its content (not its name), and one whose samples the platform can read — the same header check every
 * other WAV input gets (`readWavHeader`: PCM or float, `fmt ` before `data`, a data chunk the file really
 * holds). The platform answers a file that fails it with a 400, after the upload.
 */
import { readAtOf, readWavHeader } from '../audio/read-wav-header.js';
import { ValidationError } from '../errors/polymodal-error.js';
import type { FileAccess } from '../files/create-file-access.js';
import { openLocalFile } from '../media/read-media-as-data-url.js';
import { isWav } from '../media/sniff-media-type.js';

export interface VoiceRecording {
  realPath: string;
  size: number;
  mtimeMs: number;
}

/** Opens and checks `audioFile` (confined by `files`); throws ValidationError, nothing sent, when it is no WAV. */
export async function checkVoiceRecording(
  audioFile: string,
  files: FileAccess | undefined,
): Promise<VoiceRecording> {
  const opened = await openLocalFile(audioFile, files, 'audioFile');
  const { realPath, size } = opened;
  let head: Buffer;
  let mtimeMs: number;
  /** Why a file with a RIFF/WAVE header still holds no samples the platform can read. */
  let unreadable: string | undefined;
  try {
    mtimeMs = (await opened.handle.stat()).mtimeMs;
    const readAt = readAtOf(opened.handle);
    head = await readAt(0, 12);
    if (size > 0 && isWav(head)) {
      await readWavHeader(readAt, size, realPath).catch((error: unknown) => {
        if (!ValidationError.isInstance(error)) throw error;
        unreadable = error.issues[0]?.message ?? error.message;
      });
    }
  } finally {
    await opened.handle.close();
  }
  if (size === 0 || !isWav(head)) {
    throw new ValidationError(
      `audioFile: ${realPath} is not a WAV recording (checked by content). Nothing was sent.`,
      [{ path: 'audioFile', message: 'not a WAV file' }],
    );
  }
  if (unreadable !== undefined) {
    throw new ValidationError(
      `audioFile: ${realPath} is not a readable PCM WAV recording (${unreadable}). Give a PCM WAV, e.g. converted with \`ffmpeg -i <file> -ac 1 -c:a pcm_s16le voice.wav\`. Nothing was sent.`,
      [{ path: 'audioFile', message: unreadable }],
    );
  }
  return { realPath, size, mtimeMs };
}
