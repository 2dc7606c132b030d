/**
 * A local image, audio or video file turned into a base64 data URL for a JSON request, after the checks
 * the service would make: inside an allowed directory, a regular file, not empty, within the size limit,
 * of an accepted type by its first bytes (never by its name) and whole inside — an image decodes to real
 * dimensions within the limits, a WAV's chunks agree with its size, an MP4 has a movie with a duration.
 * The file is opened once and everything is read from that descriptor.
 */
import { ValidationError } from '../errors/polymodal-error.js';
import type { FileAccess } from '../files/create-file-access.js';
import { type OpenedFile, openRegularFile, readAt } from '../files/open-verified-file.js';
import { decodeImageHeader } from './decode-image-header.js';
import type { RecordingContainer } from './recording-formats.js';
import { type MediaKind, sniffMediaType } from './sniff-media-type.js';
import { validateRecordingContent } from './validate-recording-content.js';

/** Largest local file sent inline (base64 grows it by a third); images follow the 25 MB service limit. */
export const MAX_INLINE_BYTES: Readonly<Record<MediaKind, number>> = {
  image: 25 * 1024 * 1024,
  audio: 50 * 1024 * 1024,
  video: 50 * 1024 * 1024,
};

const ACCEPTED: Readonly<Record<MediaKind, string>> = {
  image: 'JPG, PNG or WEBP',
  audio: 'WAV or MP3',
  video: 'MP4, MOV, MKV, WEBM, AVI or MPEG',
};

/** The container whose structure is checked for a sniffed audio or video type. */
const CONTAINERS: Readonly<Record<string, RecordingContainer>> = {
  'audio/wav': 'wav',
  'audio/mpeg': 'mp3',
  'video/mp4': 'mp4',
  'video/x-matroska': 'mkv',
  'video/x-msvideo': 'avi',
  'video/mpeg': 'mpeg',
};

export interface MediaDataUrl {
  dataUrl: string;
  contentType: string;
  size: number;
  realPath: string;
  /** Pixel size, for images. */
  width?: number;
  height?: number;
}

export async function readMediaAsDataUrl(
  filePath: string,
  options: { kind: MediaKind; field: string; files?: FileAccess; maxBytes?: number },
): Promise<MediaDataUrl> {
  const { kind, field } = options;
  const maxBytes = options.maxBytes ?? MAX_INLINE_BYTES[kind];
  const opened = await openLocalFile(filePath, options.files, field);
  try {
    const refuse = (problem: string): never => {
      throw new ValidationError(`${field}: ${opened.realPath} ${problem}. Nothing was sent.`, [
        { path: field, message: problem },
      ]);
    };
    if (opened.size === 0) refuse('is empty');
    if (opened.size > maxBytes) {
      refuse(
        `is ${(opened.size / 1048576).toFixed(1)} MB; the limit is ${(maxBytes / 1048576).toFixed(0)} MB`,
      );
    }
    // Exactly the size checked above: a file growing meanwhile cannot make this read larger.
    const bytes = await readAt(opened.handle, 0, opened.size);
    if (bytes.length !== opened.size) refuse('changed while it was being read; try again');
    const contentType =
      sniffMediaType(kind, bytes) ?? refuse(`is not a ${ACCEPTED[kind]} file (checked by its content)`);
    let dimensions: { width: number; height: number } | undefined;
    if (kind === 'image') {
      const image = decodeImageHeader(bytes);
      if ('problem' in image) refuse(`${image.problem}; re-export the image and try again`);
      else dimensions = { width: image.width, height: image.height };
    } else {
      const container = CONTAINERS[contentType];
      const content = container ? await validateRecordingContent(opened, container, { duration: false }) : {};
      if ('problem' in content) refuse(`${content.problem}; re-export it and try again`);
    }
    return {
      dataUrl: `data:${contentType};base64,${bytes.toString('base64')}`,
      contentType,
      size: bytes.length,
      realPath: opened.realPath,
      ...dimensions,
    };
  } finally {
    await opened.handle.close();
  }
}

/**
 * Opens a regular file once, confined by `files` when given (no symlink followed, the descriptor verified,
 * never blocking on a FIFO); errors name `field`. The caller reads through the handle and closes it.
 */
export async function openLocalFile(
  filePath: string,
  files: FileAccess | undefined,
  field: string,
): Promise<OpenedFile> {
  try {
    return files ? await files.openReadable(filePath) : await openRegularFile(filePath);
  } catch (error) {
    if (!ValidationError.isInstance(error)) throw error;
    throw new ValidationError(`${field}: ${error.message}`, [{ path: field, message: 'not readable' }]);
  }
}
