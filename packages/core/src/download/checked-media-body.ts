/**
 * The body of a media download, checked as it streams: its size against the limit (the declared
 * Content-Length up front, then the bytes counted), its type by its first bytes (and a declared
 * Content-Type must not contradict it, e.g. an HTML error page), and a body that ends short of its
 * declared length is a failed transfer.
 */
import type { Dispatcher } from 'undici';
import { ConnectionError, ValidationError } from '../errors/polymodal-error.js';
import { type MediaKind, sniffMediaType } from '../media/sniff-media-type.js';
import { discardBody, displayUrl } from './transfer-helpers.js';

const SNIFF_BYTES = 200;

/** The body's chunks as they pass the checks, and what they turned out to be once read. */
export interface CheckedMediaBody {
  chunks: AsyncGenerator<Uint8Array>;
  size(): number;
  contentType(): string | undefined;
}

/** Refuses a response whose headers already say it is too large or of another kind (its body dropped). */
export function checkMediaHeaders(
  response: Dispatcher.ResponseData,
  expected: { url: URL; kind: MediaKind; maxBytes: number },
): void {
  const { url, kind, maxBytes } = expected;
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    discardBody(response.body);
    throw tooLarge(url, maxBytes);
  }
  const declaredType =
    String(response.headers['content-type'] ?? '')
      .split(';')[0]
      ?.trim() ?? '';
  if (declaredType !== '' && !typeFits(kind, declaredType)) {
    discardBody(response.body);
    throw new ValidationError(
      `The media at ${displayUrl(url)} is ${declaredType}, not ${kind}; nothing was saved.`,
      [{ path: 'url', message: 'unexpected content type' }],
    );
  }
}

export function checkedMediaBody(
  response: Dispatcher.ResponseData,
  expected: { url: URL; kind: MediaKind; maxBytes: number },
): CheckedMediaBody {
  const { url, kind, maxBytes } = expected;
  const declared = Number(response.headers['content-length']);
  const body = response.body;
  let size = 0;
  let sniffed: string | undefined;
  let head = Buffer.alloc(0);
  async function* checked(): AsyncGenerator<Uint8Array> {
    for await (const chunk of body) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      size += buffer.length;
      if (size > maxBytes) throw tooLarge(url, maxBytes);
      if (sniffed === undefined) {
        head = Buffer.concat([head, buffer]).subarray(0, SNIFF_BYTES);
        if (head.length < SNIFF_BYTES && size < SNIFF_BYTES) {
          // Wait for more bytes before deciding, unless the file is tiny.
          yield buffer;
          continue;
        }
        sniffed = sniffMediaType(kind, head) ?? wrongType(kind, url);
      }
      yield buffer;
    }
    if (sniffed === undefined) sniffed = sniffMediaType(kind, head) ?? wrongType(kind, url);
    if (Number.isFinite(declared) && declared !== size) {
      throw new ConnectionError(
        `The media download of ${displayUrl(url)} ended after ${size} of ${declared} bytes; nothing was saved.`,
        { requestMayHaveArrived: true },
      );
    }
  }
  return { chunks: checked(), size: () => size, contentType: () => sniffed };
}

function tooLarge(url: URL, maxBytes: number): ValidationError {
  return new ValidationError(
    `The media at ${displayUrl(url)} is larger than the ${maxBytes}-byte download limit; nothing was saved.`,
    [{ path: 'url', message: 'too large' }],
  );
}

function typeFits(kind: MediaKind, declared: string): boolean {
  const lower = declared.toLowerCase();
  return (
    lower.startsWith(`${kind}/`) || lower === 'application/octet-stream' || lower === 'binary/octet-stream'
  );
}

function wrongType(kind: MediaKind, url: URL): never {
  throw new ValidationError(
    `The file at ${displayUrl(url)} is not ${kind === 'audio' ? 'WAV or MP3 audio' : `a ${kind}`} (checked by its first bytes); nothing was saved.`,
    [{ path: 'url', message: 'unexpected content' }],
  );
}
