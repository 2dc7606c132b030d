/**
 * Reads a small multipart form (fields and files held in memory, each file capped) with busboy.
 */
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { HttpError } from '../../framework/http-error.js';

export interface MultipartForm {
  fields: Map<string, string>;
  files: Map<string, { data: Buffer; filename: string | undefined }>;
}

export async function readMultipart(request: IncomingMessage, maxFileBytes: number): Promise<MultipartForm> {
  if (!String(request.headers['content-type'] ?? '').startsWith('multipart/form-data')) {
    throw new HttpError(400, 'expected a multipart/form-data body');
  }
  const form: MultipartForm = { fields: new Map(), files: new Map() };
  await new Promise<void>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: request.headers,
        // Form-data file names are UTF-8 (RFC 7578 §4.2; browsers send them so), not busboy's latin1 default.
        defParamCharset: 'utf8',
        limits: { files: 4, fileSize: maxFileBytes, fields: 30, fieldSize: 64 * 1024 },
      });
    } catch (error) {
      reject(new HttpError(400, `invalid multipart body: ${(error as Error).message}`));
      return;
    }
    let failed = false;
    const fail = (error: HttpError) => {
      if (failed) return;
      failed = true;
      request.unpipe(parser);
      request.resume();
      reject(error);
    };
    parser.on('field', (name, value) => form.fields.set(name, value));
    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => fail(new HttpError(413, `file ${name} is larger than ${maxFileBytes} bytes`)));
      stream.on('end', () => form.files.set(name, { data: Buffer.concat(chunks), filename: info.filename }));
    });
    parser.on('error', (error: Error) =>
      fail(new HttpError(400, `invalid multipart body: ${error.message}`)),
    );
    parser.on('close', () => {
      if (!failed) resolve();
    });
    request.pipe(parser);
  });
  return form;
}
