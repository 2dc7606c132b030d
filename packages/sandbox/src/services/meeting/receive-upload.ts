/**
 * Streams the multipart field `file` of an upload to a file on disk with busboy, hashing on the way.
 * Nothing is held in memory beyond stream buffers, so a 500 MB upload does not grow the process; past
 * the size limit it stops writing, removes the partial file and reports the overflow.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import { HttpError } from '../../framework/http-error.js';

export interface ReceivedFile {
  size: number;
  sha256: Buffer;
  filename: string | undefined;
  mimeType: string | undefined;
}

export type ReceiveResult =
  | { kind: 'file'; file: ReceivedFile }
  | { kind: 'missing' }
  | { kind: 'too-large' };

export interface ReceiveUploadOptions {
  request: IncomingMessage;
  field: string;
  filePath: string;
  maxBytes: number;
}

function createParser(options: ReceiveUploadOptions): busboy.Busboy {
  try {
    return busboy({
      headers: options.request.headers,
      // Form-data file names are UTF-8 (RFC 7578 §4.2; browsers send them so), not busboy's latin1 default.
      defParamCharset: 'utf8',
      limits: { files: 1, fileSize: options.maxBytes, fields: 50, fieldSize: 64 * 1024, parts: 100 },
    });
  } catch (error) {
    throw new HttpError(
      400,
      `expected multipart/form-data with a file field "${options.field}": ${(error as Error).message}`,
    );
  }
}

interface WriteFilePartOptions {
  stream: Readable;
  info: busboy.FileInfo;
  filePath: string;
  /** Called when the part passes the size limit, before the partial file is removed. */
  onOverflow: () => void;
}

/**
 * Writes one file part to disk, hashing it on the way. Resolves with the file, or `'too-large'` once the
 * partial file of an overflowing part is removed; rejects when writing fails otherwise.
 */
function writeFilePart(options: WriteFilePartOptions): Promise<ReceivedFile | 'too-large'> {
  const { stream, info, filePath } = options;
  const hash = createHash('sha256');
  let size = 0;
  let overflow = false;
  stream.on('data', (chunk: Buffer) => {
    size += chunk.length;
    hash.update(chunk);
  });
  stream.on('limit', () => {
    overflow = true;
    options.onOverflow();
    stream.destroy(new Error('upload exceeds the size limit'));
  });
  return pipeline(stream, createWriteStream(filePath, { flags: 'wx' })).then(
    () => ({
      size,
      sha256: hash.digest(),
      filename: info.filename || undefined,
      mimeType: info.mimeType || undefined,
    }),
    async (error: unknown) => {
      await rm(filePath, { force: true });
      if (overflow) return 'too-large' as const;
      throw error;
    },
  );
}

export async function receiveUpload(options: ReceiveUploadOptions): Promise<ReceiveResult> {
  const { request } = options;
  const parser = createParser(options);

  return new Promise<ReceiveResult>((resolve, reject) => {
    let writing: Promise<ReceivedFile | 'too-large'> | undefined;
    let fileStream: Readable | undefined;
    let settled = false;
    const finish = (outcome: Promise<ReceiveResult>) => {
      if (settled) return;
      settled = true;
      outcome.then(resolve, reject);
    };
    // Stops parsing; the rest of the body is read and dropped so that the client can read the answer.
    const stopReading = () => {
      request.unpipe(parser);
      request.resume();
    };

    parser.on('file', (name, stream, info) => {
      if (name !== options.field || writing) {
        stream.resume();
        return;
      }
      fileStream = stream;
      writing = writeFilePart({ stream, info, filePath: options.filePath, onOverflow: stopReading });
      writing
        .then((file) => {
          if (file === 'too-large') finish(Promise.resolve({ kind: 'too-large' }));
        })
        .catch(() => undefined);
    });
    const removePartial = () =>
      (writing ?? Promise.resolve()).catch(() => undefined).then(() => rm(options.filePath, { force: true }));
    parser.on('error', (error: Error) => {
      stopReading();
      fileStream?.destroy(error);
      const cleanup = removePartial();
      finish(
        cleanup.then(() => Promise.reject(new HttpError(400, `malformed multipart body: ${error.message}`))),
      );
    });
    parser.on('close', () => {
      if (!writing) {
        finish(Promise.resolve({ kind: 'missing' }));
        return;
      }
      finish(
        writing.then(
          (file): ReceiveResult => (file === 'too-large' ? { kind: 'too-large' } : { kind: 'file', file }),
        ),
      );
    });
    request.on('close', () => {
      if (request.complete) return;
      // The client went away mid-upload: end the file stream so the partial file is closed, then remove it.
      fileStream?.destroy(new Error('upload interrupted'));
      const cleanup = removePartial();
      finish(cleanup.then(() => Promise.reject(new HttpError(400, 'the upload was interrupted'))));
    });
    request.pipe(parser);
  });
}
