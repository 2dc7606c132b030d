/**
 * A streamed multipart/form-data body for one file. The file is read chunk by chunk as the socket takes
 * it, so uploading 500 MB keeps memory flat, and the exact Content-Length is known up front (no chunked
 * encoding, which some upload front ends refuse).
 */
import { randomBytes } from 'node:crypto';
import { type Stats, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { ValidationError } from '../errors/index.js';
import type { MultipartBody } from '../http/http-client.js';

export interface MultipartFileBodyOptions {
  /** Form field name of the file, e.g. `file`. */
  field: string;
  path: string;
  /** File name announced to the server. */
  filename: string;
  contentType: string;
  /** Extra text fields, sent before the file. */
  fields?: Record<string, string>;
  /** File bytes handed to the connection so far, and the file size. */
  onProgress?: (sentBytes: number, totalBytes: number) => void;
}

const CHUNK_BYTES = 64 * 1024;

/** Quoted-string value for a Content-Disposition parameter, escaped as browsers do (WHATWG). */
function quote(value: string): string {
  return `"${value.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22')}"`;
}

function fileDisposition(field: string, filename: string): string {
  const plain = `form-data; name=${quote(field)}; filename=${quote(filename)}`;
  if (/^[\x20-\x7e]*$/.test(filename)) return plain;
  // Non-ASCII names: an ASCII fallback plus RFC 5987 `filename*`, which multipart parsers prefer.
  const fallback = filename.replace(/[^\x20-\x7e]/g, '_');
  return `form-data; name=${quote(field)}; filename=${quote(fallback)}; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

function changed(file: string): ValidationError {
  return new ValidationError(
    `${file} changed during upload. Wait until the recording is completely written, then upload it again.`,
    [{ path: 'file', message: 'the file changed during upload' }],
  );
}

export function createMultipartFileBody(options: MultipartFileBodyOptions): MultipartBody {
  const boundary = `----polymodal-${randomBytes(16).toString('hex')}`;
  let stats: Stats;
  try {
    stats = statSync(options.path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new ValidationError(
      `${options.path} cannot be read for upload (${code}). Check the path and try again.`,
      [{ path: 'file', message: `unreadable (${code})` }],
    );
  }
  const size = stats.size;
  let preamble = '';
  for (const [name, value] of Object.entries(options.fields ?? {})) {
    preamble += `--${boundary}\r\nContent-Disposition: form-data; name=${quote(name)}\r\n\r\n${value}\r\n`;
  }
  preamble +=
    `--${boundary}\r\nContent-Disposition: ${fileDisposition(options.field, options.filename)}\r\n` +
    `Content-Type: ${options.contentType}\r\n\r\n`;
  const head = Buffer.from(preamble, 'utf8');
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8');

  async function* generate(): AsyncGenerator<Buffer> {
    yield head;
    // Opened lazily: a body that is built but never sent holds no descriptor.
    const handle = await open(options.path, 'r');
    try {
      let sent = 0;
      options.onProgress?.(0, size);
      for (;;) {
        // One byte more than expected is requested at the end, to notice a file that grew.
        const want = Math.min(CHUNK_BYTES, size - sent + 1);
        const buffer = Buffer.allocUnsafe(want);
        const { bytesRead } = await handle.read(buffer, 0, want, sent);
        if (bytesRead === 0) break;
        if (sent + bytesRead > size) throw changed(options.path);
        sent += bytesRead;
        yield buffer.subarray(0, bytesRead);
        options.onProgress?.(sent, size);
      }
      const after = await handle.stat();
      if (sent !== size || after.size !== size || after.mtimeMs !== stats.mtimeMs)
        throw changed(options.path);
    } finally {
      await handle.close();
    }
    yield tail;
  }

  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    contentLength: head.length + size + tail.length,
    body: Readable.from(generate(), { objectMode: false }),
  };
}
