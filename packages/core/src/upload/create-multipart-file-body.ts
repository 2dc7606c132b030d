/**
 * A streamed multipart/form-data body for one file (and optionally more, e.g. a reference recording). The
 * file is read chunk by chunk as the socket takes it, so uploading 500 MB keeps memory flat, and the exact
 * Content-Length is known up front (no chunked encoding, which some upload front ends refuse).
 *
 * Files are given opened (`file`): the body reads the descriptor with positional reads and never opens the
 * path again, so the bytes sent — on the first attempt and on every retry, which calls the factory anew —
 * are those of the file that was checked, whatever happens to the path meanwhile. The body does not close
 * the descriptor: its owner does, when the whole call is over.
 */

import { statSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { ValidationError } from '../errors/polymodal-error.js';
import type { OpenedFile } from '../files/open-verified-file.js';
import type { MultipartBody } from '../http/http-client.js';
import { nodeCrypto } from '../util/builtins.js';
import { type FileSegment, MultipartFileStream, type StreamSegment } from './multipart-file-stream.js';

/** One file of the form: opened (`file`), or, for callers not yet moved to descriptors, a `path`. */
export interface MultipartFilePart {
  /** Form field name of the file, e.g. `file`. */
  field: string;
  /** The opened file (size and mtime as opened): every body built from it reads this descriptor. */
  file?: OpenedFile;
  /**
   * @deprecated Opened by name when the body is sent, so a path swapped after it was checked is read;
   * give `file` instead.
   */
  path?: string;
  /** File name announced to the server. */
  filename: string;
  contentType: string;
}

export interface MultipartFileBodyOptions extends MultipartFilePart {
  /** Extra text fields, sent before the file. */
  fields?: Record<string, string>;
  /** Further files, sent after the first one. */
  additionalFiles?: readonly MultipartFilePart[];
  /** File bytes handed to the connection so far, and the size of all files. */
  onProgress?: (sentBytes: number, totalBytes: number) => void;
}

interface FilePart {
  /** For messages. */
  name: string;
  head: Buffer;
  size: number;
  mtimeMs: number;
  /** The descriptor to read (not owned), or a path to open for this body (owned by the body). */
  source: { handle: FileHandle } | { path: string };
}

/** Quoted-string value for a Content-Disposition parameter, escaped as browsers do (WHATWG). */
function quote(value: string): string {
  return `"${value.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22')}"`;
}

function newBoundary(): string {
  return `----polymodal-${nodeCrypto().randomBytes(16).toString('hex')}`;
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

function statForUpload(file: string): { size: number; mtimeMs: number } {
  try {
    return statSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new ValidationError(`${file} cannot be read for upload (${code}). Check the path and try again.`, [
      { path: 'file', message: `unreadable (${code})` },
    ]);
  }
}

function sourceOf(part: MultipartFilePart): Pick<FilePart, 'name' | 'size' | 'mtimeMs' | 'source'> {
  if (part.file) {
    const { handle, realPath, size, mtimeMs } = part.file;
    return { name: realPath, size, mtimeMs, source: { handle } };
  }
  if (part.path === undefined) {
    throw new ValidationError(`The upload of field ${part.field} names no file.`, [
      { path: part.field, message: 'no file' },
    ]);
  }
  const stats = statForUpload(part.path);
  return { name: part.path, size: stats.size, mtimeMs: stats.mtimeMs, source: { path: part.path } };
}

export function createMultipartFileBody(options: MultipartFileBodyOptions): MultipartBody {
  const boundary = newBoundary();
  const fieldText = fieldParts(boundary, options.fields ?? {});
  const files = [options, ...(options.additionalFiles ?? [])];
  const parts: FilePart[] = files.map((file, index) => ({
    ...sourceOf(file),
    head: Buffer.from(
      `${index === 0 ? fieldText : '\r\n'}--${boundary}\r\nContent-Disposition: ${fileDisposition(file.field, file.filename)}\r\n` +
        `Content-Type: ${file.contentType}\r\n\r\n`,
      'utf8',
    ),
  }));
  const total = parts.reduce((sum, part) => sum + part.size, 0);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8');

  const segments: StreamSegment[] = [];
  for (const part of parts) segments.push(part.head, fileSegment(part));
  segments.push(tail);

  const body = new MultipartFileStream(segments, (sent) => options.onProgress?.(sent, total));
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    contentLength: parts.reduce((sum, part) => sum + part.head.length, 0) + total + tail.length,
    body,
    lendBuffers: () => {
      body.lendBuffers();
    },
  };
}

/** How the stream reads one file: its descriptor (or the path, opened lazily), then the check after it. */
function fileSegment(part: FilePart): FileSegment {
  let owned: FileHandle | undefined;
  return {
    size: part.size,
    async open() {
      if ('handle' in part.source) return part.source.handle;
      // A path is opened lazily: a body that is built but never sent holds no descriptor.
      owned = await open(part.source.path, 'r');
      return owned;
    },
    async release() {
      const handle = owned;
      owned = undefined;
      await handle?.close();
    },
    async verify(handle, bytesRead) {
      const after = await handle.stat();
      if (bytesRead !== part.size || after.size !== part.size || after.mtimeMs !== part.mtimeMs) {
        throw changed(part.name);
      }
    },
    grew: () => changed(part.name),
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
