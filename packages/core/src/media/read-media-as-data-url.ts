/**
 * A local image, audio or video file turned into a base64 data URL for a JSON request, after the checks
 * the service would make: inside an allowed directory, a regular file, not empty, within the size limit
 * and of an accepted type by its first bytes (never by its name).
 */

import { open } from 'node:fs/promises';
import path from 'node:path';
import { ValidationError } from '../errors/index.js';
import type { FileAccess, OpenedFile } from '../files/index.js';
import { type MediaKind, sniffMediaType } from './sniff-media-type.js';

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

export async function readMediaAsDataUrl(
  filePath: string,
  options: { kind: MediaKind; field: string; files?: FileAccess; maxBytes?: number },
): Promise<{ dataUrl: string; contentType: string; size: number; realPath: string }> {
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
    const bytes = await opened.handle.readFile();
    const contentType =
      sniffMediaType(kind, bytes) ?? refuse(`is not a ${ACCEPTED[kind]} file (checked by its content)`);
    return {
      dataUrl: `data:${contentType};base64,${bytes.toString('base64')}`,
      contentType,
      size: bytes.length,
      realPath: opened.realPath,
    };
  } finally {
    await opened.handle.close();
  }
}

/** Opens a regular file, confined by `files` when given; errors name `field`. The caller closes it. */
export async function openLocalFile(
  filePath: string,
  files: FileAccess | undefined,
  field: string,
): Promise<OpenedFile> {
  if (files) return files.openReadable(filePath);
  const realPath = path.resolve(filePath);
  try {
    const handle = await open(realPath, 'r');
    const stats = await handle.stat();
    if (!stats.isFile()) {
      await handle.close();
      throw new ValidationError(`${field}: ${realPath} is not a regular file. Nothing was sent.`, [
        { path: field, message: 'not a file' },
      ]);
    }
    return { handle, realPath, size: stats.size };
  } catch (error) {
    if (ValidationError.isInstance(error)) throw error;
    throw new ValidationError(`${field}: ${realPath} cannot be read. Nothing was sent.`, [
      { path: field, message: 'not readable' },
    ]);
  }
}
