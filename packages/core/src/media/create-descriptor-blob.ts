/**
 * A read-only Blob over an open descriptor, for parsers that take a Blob (music-metadata's `parseBlob`).
 * A Blob gives them random access (`slice(a, b).arrayBuffer()`), so an MP4 whose `moov` box sits after
 * gigabytes of `mdat` is read by seeking, not by streaming through the file, and nothing is read from the
 * path: only from the descriptor that was opened and verified. Only the reading half of the Blob interface
 * is implemented; the descriptor stays owned by the caller.
 */
import type { FileHandle } from 'node:fs/promises';
import { ValidationError } from '../errors/polymodal-error.js';
import { readAt } from '../files/open-verified-file.js';

/** The largest single read a parser may ask for: metadata is small, and a crafted size must not allocate GBs. */
export const MAX_BLOB_READ_BYTES = 64 * 1024 * 1024;
const STREAM_CHUNK_BYTES = 64 * 1024;

export interface DescriptorBlob {
  readonly size: number;
  readonly type: string;
  slice(start?: number, end?: number, contentType?: string): DescriptorBlob;
  arrayBuffer(): Promise<ArrayBuffer>;
  bytes(): Promise<Uint8Array>;
  text(): Promise<string>;
  stream(): ReadableStream<Uint8Array>;
}

/** Blob.slice's index rule: negative counts from the end, then clamped to [0, size]. */
function relative(index: number | undefined, size: number, fallback: number): number {
  if (index === undefined || Number.isNaN(index)) return fallback;
  const whole = Math.trunc(index);
  return whole < 0 ? Math.max(size + whole, 0) : Math.min(whole, size);
}

export function createDescriptorBlob(
  handle: FileHandle,
  range: { start?: number; size: number; type?: string },
): DescriptorBlob {
  const start = range.start ?? 0;
  const { size } = range;
  const type = range.type ?? '';

  async function read(): Promise<Buffer> {
    if (size > MAX_BLOB_READ_BYTES) {
      throw new ValidationError(
        `A parser asked for ${size} bytes at once (over ${MAX_BLOB_READ_BYTES}); the file's metadata is not plausible.`,
        [{ path: 'file', message: 'metadata block too large' }],
      );
    }
    return readAt(handle, start, size);
  }

  return {
    size,
    type,
    slice(sliceStart, sliceEnd, contentType) {
      const from = relative(sliceStart, size, 0);
      const to = relative(sliceEnd, size, size);
      return createDescriptorBlob(handle, {
        start: start + from,
        size: Math.max(to - from, 0),
        type: contentType ?? '',
      });
    },
    async arrayBuffer() {
      const bytes = await read();
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer;
    },
    async bytes() {
      return new Uint8Array(await read());
    },
    async text() {
      return (await read()).toString('utf8');
    },
    stream() {
      let offset = 0;
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (offset >= size) {
            controller.close();
            return;
          }
          const chunk = await readAt(handle, start + offset, Math.min(STREAM_CHUNK_BYTES, size - offset));
          if (chunk.length === 0) {
            controller.close();
            return;
          }
          offset += chunk.length;
          controller.enqueue(new Uint8Array(chunk));
        },
      });
    },
  };
}
