/**
 * The check of an image given inline as a data URL (by an agent, or built from a local file): the same
 * decoding as a local image (`decodeImageHeader`), so a truncated PNG or JPEG never starts a paid job
 * whichever way it arrives.
 */
import { ValidationError } from '../errors/polymodal-error.js';
import { decodeImageHeader, type ImageHeader } from './decode-image-header.js';
import { MAX_INLINE_BYTES } from './read-media-as-data-url.js';

const DATA_URL = /^data:([^,]*?)(;base64)?,/i;

/** Decodes an image data URL's header; refuses one that is not a whole PNG, JPEG or WebP within limits. */
export function checkImageDataUrl(url: string, field: string): ImageHeader {
  const refuse = (problem: string): never => {
    throw new ValidationError(`${field}: the data URL ${problem}. Nothing was sent.`, [
      { path: field, message: problem },
    ]);
  };
  const match = DATA_URL.exec(url);
  if (!match) return refuse('is malformed (expected data:<type>;base64,<data>)');
  const payload = url.slice(match[0].length);
  // base64 is about 4/3 of the bytes: refused before decoding anything that large.
  if (payload.length > Math.ceil((MAX_INLINE_BYTES.image * 4) / 3) + 4) {
    return refuse(`holds more than the ${MAX_INLINE_BYTES.image / 1048576} MB allowed for an image`);
  }
  let bytes: Buffer;
  try {
    bytes = match[2] ? Buffer.from(payload, 'base64') : Buffer.from(decodeURIComponent(payload), 'latin1');
  } catch {
    return refuse('cannot be decoded');
  }
  const image = decodeImageHeader(bytes);
  if ('problem' in image) return refuse(`${image.problem.replace(/^is /, 'holds an image that is ')}`);
  return image;
}
