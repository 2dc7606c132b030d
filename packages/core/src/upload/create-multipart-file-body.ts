/**
 * A streamed multipart/form-data body for one file (and optionally more, e.g. a reference recording). The file is read chunk by chunk as the socket takes
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
  /** Further files, sent after the first one. */
  additionalFiles?: readonly { field: string; path: string; filename: string; contentType: string }[];
  /** File bytes handed to the connection so far, and the size of all files. */
  onProgress?: (sentBytes: number, totalBytes: number) => void;
}

interface FilePart {
  path: string;
  head: Buffer;
  stats: Stats;
}

const CHUNK_BYTES = 64 * 1024;

/** Quoted-string value for a Content-Disposition parameter, escaped as browsers do (WHATWG). */
function quote(value: string): string {
  return `"${value.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22')}"`;
}

function newBoundary(): string {
  return `----polymodal-${randomBytes(16).toString('hex')}`;
}

function fieldParts(boundary: string, fields: Record<string, string>): string {
  let text = '';
  for (const [name, value] of Object.entries(fields)) {
    text += `--${boundary}\r\nContent-Disposition: form-data; name=${quote(name)}\r\n\r\n${value}\r\n`;
  }
  return text;
}

/**
 * The file part's disposition. Non-ASCII names go as UTF-8 in `filename=` (what browsers send): RFC 7578
 * §4.2 says `filename*` must not be used in multipart/form-data, and parsers that follow it would take
 * the ASCII fallback and lose the real name. Quotes and line breaks are percent-encoded as browsers do.
 */
function fileDisposition(field: string, filename: string): string {
  return `form-data; name=${quote(field)}; filename=${quote(filename)}`;
}

function changed(file: string): ValidationError {
  return new ValidationError(
    `${file} changed during upload. Wait until the recording is completely written, then upload it again.`,
    [{ path: 'file', message: 'the file changed during upload' }],
  );
}

function statForUpload(file: string): Stats {
  try {
    return statSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new ValidationError(`${file} cannot be read for upload (${code}). Check the path and try again.`, [
      { path: 'file', message: `unreadable (${code})` },
    ]);
  }
}

export function createMultipartFileBody(options: MultipartFileBodyOptions): MultipartBody {
  const boundary = newBoundary();
  const fieldText = fieldParts(boundary, options.fields ?? {});
  const files = [options, ...(options.additionalFiles ?? [])];
  const parts: FilePart[] = files.map((file, index) => ({
    path: file.path,
    stats: statForUpload(file.path),
    head: Buffer.from(
      `${index === 0 ? fieldText : '\r\n'}--${boundary}\r\nContent-Disposition: ${fileDisposition(file.field, file.filename)}\r\n` +
        `Content-Type: ${file.contentType}\r\n\r\n`,
      'utf8',
    ),
  }));
  const total = parts.reduce((sum, part) => sum + part.stats.size, 0);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8');

  async function* generate(): AsyncGenerator<Buffer> {
    let sentTotal = 0;
    options.onProgress?.(0, total);
    for (const part of parts) {
      yield part.head;
      const size = part.stats.size;
      // Opened lazily: a body that is built but never sent holds no descriptor.
      const handle = await open(part.path, 'r');
      try {
        let sent = 0;
        for (;;) {
          // One byte more than expected is requested at the end, to notice a file that grew.
          const want = Math.min(CHUNK_BYTES, size - sent + 1);
          const buffer = Buffer.allocUnsafe(want);
          const { bytesRead } = await handle.read(buffer, 0, want, sent);
          if (bytesRead === 0) break;
          if (sent + bytesRead > size) throw changed(part.path);
          sent += bytesRead;
          sentTotal += bytesRead;
          yield buffer.subarray(0, bytesRead);
          options.onProgress?.(sentTotal, total);
        }
        const after = await handle.stat();
        if (sent !== size || after.size !== size || after.mtimeMs !== part.stats.mtimeMs)
          throw changed(part.path);
      } finally {
        await handle.close();
      }
    }
    yield tail;
  }

  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    contentLength: parts.reduce((sum, part) => sum + part.head.length, 0) + total + tail.length,
    body: Readable.from(generate(), { objectMode: false }),
  };
}

/** A multipart/form-data body of text fields only (e.g. a registration by URL). */
export function createMultipartFieldsBody(fields: Record<string, string>): MultipartBody {
  const boundary = newBoundary();
  const bytes = Buffer.from(`${fieldParts(boundary, fields)}--${boundary}--\r\n`, 'utf8');
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    contentLength: bytes.length,
    body: Readable.from([bytes], { objectMode: false }),
  };
}
