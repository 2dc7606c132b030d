/**
 * Reads a multipart form whose one file field is streamed to disk (hashed on the way, never held in
 * memory) and whose other fields are short strings. Past the size limit it stops writing, removes the
 * partial file, drains the rest of the body so the client can read the answer, and reports the overflow.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import { HttpError } from '../framework/http-error.js';

export interface ReceivedFormFile {
  path: string;
  size: number;
  sha256: string;
  filename: string | undefined;
  /** The first bytes, for signature checks. */
  head: Buffer;
}

export interface ReceivedForm {
  fields: Map<string, string>;
  file: ReceivedFormFile | undefined;
  /** Other file fields that were sent (and dropped). */
  ignoredFiles: string[];
  tooLarge: boolean;
}

export interface ReceiveFormOptions {
  request: IncomingMessage;
  fileField: string;
  filePath: string;
  maxBytes: number;
}

const HEAD_BYTES = 512;

export async function receiveForm(options: ReceiveFormOptions): Promise<ReceivedForm> {
  const { request } = options;
  if (!/^multipart\/form-data/i.test(String(request.headers['content-type'] ?? ''))) {
    throw new HttpError(
      400,
      `expected a multipart/form-data body with the file field "${options.fileField}"`,
    );
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: request.headers,
      // Form-data file names are UTF-8 (RFC 7578 §4.2; browsers send them so), not busboy's latin1 default.
      defParamCharset: 'utf8',
      limits: { files: 4, fileSize: options.maxBytes, fields: 40, fieldSize: 64 * 1024, parts: 60 },
    });
  } catch (error) {
    throw new HttpError(400, `malformed multipart body: ${(error as Error).message}`);
  }
  const form: ReceivedForm = { fields: new Map(), file: undefined, ignoredFiles: [], tooLarge: false };

  return new Promise<ReceivedForm>((resolve, reject) => {
    let writing: Promise<void> | undefined;
    let settled = false;
    const stopReading = () => {
      request.unpipe(parser);
      request.resume();
    };
    const fail = (error: HttpError) => {
      if (settled) return;
      settled = true;
      stopReading();
      void (writing ?? Promise.resolve())
        .catch(() => undefined)
        .then(() => rm(options.filePath, { force: true }))
        .then(() => reject(error));
    };

    parser.on('field', (name, value) => {
      if (!form.fields.has(name)) form.fields.set(name, value);
    });
    parser.on('file', (name, stream, info) => {
      if (name !== options.fileField || writing) {
        form.ignoredFiles.push(name);
        stream.resume();
        return;
      }
      const hash = createHash('sha256');
      const headChunks: Buffer[] = [];
      let headSize = 0;
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        hash.update(chunk);
        if (headSize < HEAD_BYTES) {
          headChunks.push(chunk);
          headSize += chunk.length;
        }
      });
      stream.on('limit', () => {
        form.tooLarge = true;
        stopReading();
        stream.destroy(new Error('file exceeds the size limit'));
      });
      writing = pipeline(stream, createWriteStream(options.filePath, { flags: 'wx' })).then(
        () => {
          form.file = {
            path: options.filePath,
            size,
            sha256: hash.digest('hex'),
            filename: info.filename || undefined,
            head: Buffer.concat(headChunks).subarray(0, HEAD_BYTES),
          };
        },
        async () => {
          await rm(options.filePath, { force: true });
          if (form.tooLarge) {
            if (!settled) {
              settled = true;
              resolve(form);
            }
            return;
          }
          fail(new HttpError(400, 'the upload was interrupted'));
        },
      );
    });
    parser.on('error', (error: Error) =>
      fail(new HttpError(400, `malformed multipart body: ${error.message}`)),
    );
    parser.on('close', () => {
      void (writing ?? Promise.resolve()).then(() => {
        if (settled) return;
        settled = true;
        resolve(form);
      });
    });
    request.on('close', () => {
      if (!request.complete) fail(new HttpError(400, 'the upload was interrupted'));
    });
    request.pipe(parser);
  });
}
