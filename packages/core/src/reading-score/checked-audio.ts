/**
 * A recording for the reading score service, opened once and checked on the descriptor before anything is
 * sent: a regular file, not empty, within READING_SCORE_MAX_UPLOAD_BYTES, audio by its content (WAV, MP3,
 * M4A, OGG, WebM, FLAC) whose structure parses (a `RIFF…WAVE` header followed by junk is refused). The
 * upload, and a retry of it, reads the same descriptor, so what was checked is what is sent.
 */
import path from 'node:path';
import { READING_SCORE_MAX_UPLOAD_BYTES } from '../constants/reading-score-limits.js';
import { ValidationError } from '../errors/polymodal-error.js';
import type { FileAccess } from '../files/create-file-access.js';
import { type OpenedFile, openRegularFile, readAt } from '../files/open-verified-file.js';
import { type SharedFile, shareOpenedFile } from '../files/share-opened-file.js';
import {
  RECORDING_CONTENT_TYPES,
  type RecordingContainer,
  SIGNATURE_BYTES,
  sniffAudioContainer,
} from '../media/recording-formats.js';
import { validateRecordingContent } from '../media/validate-recording-content.js';

/** Content types sent for the audio containers recognised by content (WebM as audio here). */
const READING_AUDIO_TYPES: Partial<Record<RecordingContainer, string>> = {
  webm: 'audio/webm',
};

/** A recording opened and checked for one submission. */
export interface CheckedAudio {
  file: SharedFile;
  /** File name announced to the service. */
  name: string;
  contentType: string;
}

/** Opens and checks one recording; `field` names it in every refusal. The caller releases `file`. */
export async function openCheckedAudio(
  files: FileAccess | undefined,
  input: { path: string; field: string },
): Promise<CheckedAudio> {
  const { field } = input;
  const openAudio = () => (files ? files.openReadable(input.path) : openRegularFile(input.path));
  let opened: OpenedFile;
  try {
    opened = await openAudio();
  } catch (error) {
    if (!ValidationError.isInstance(error)) throw error;
    throw new ValidationError(`${field}: ${error.message}`, [{ path: field, message: 'not readable' }]);
  }
  const audio = shareOpenedFile(opened, openAudio);
  try {
    const container = await checkAudio(opened, field);
    return {
      file: audio,
      name: path.basename(opened.realPath),
      contentType: READING_AUDIO_TYPES[container] ?? RECORDING_CONTENT_TYPES[container],
    };
  } catch (error) {
    await audio.release();
    throw error;
  }
}

/** The recording's container, once its size and content pass; else a ValidationError naming the fix. */
async function checkAudio(opened: OpenedFile, field: string): Promise<RecordingContainer> {
  const refuse = (problem: string, fix: string): never => {
    throw new ValidationError(`${field}: ${opened.realPath} ${problem}. ${fix} Nothing was sent.`, [
      { path: field, message: problem },
    ]);
  };
  if (opened.size === 0) refuse('is empty', 'Check that the recording finished writing.');
  if (opened.size > READING_SCORE_MAX_UPLOAD_BYTES) {
    refuse(
      `is ${(opened.size / 1048576).toFixed(1)} MB, over the ${READING_SCORE_MAX_UPLOAD_BYTES / 1048576} MB limit for a reading recording`,
      'Trim it to the reading itself, or convert it to mono 16 kHz WAV or MP3.',
    );
  }
  const container = sniffAudioContainer(await readAt(opened.handle, 0, SIGNATURE_BYTES));
  if (container === undefined) {
    return refuse(
      'is not a WAV, MP3, M4A, OGG, WebM or FLAC recording (checked by its content)',
      'Give the path of the recording itself, or convert it to WAV.',
    );
  }
  // The duration is not needed here: reading it could mean scanning a whole MP3.
  const content = await validateRecordingContent(opened, container, { duration: false });
  if ('problem' in content) refuse(content.problem, 'Re-export or re-record it, then try again.');
  return container;
}
