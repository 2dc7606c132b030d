/**
 * Generated media a service serves back (videos, clips, WAVs, stored originals) under unguessable
 * capability URLs `<base>/files/<token>/<name>`. No key is needed to download: clients must not send their
 * key to result URLs (they may sit on another origin), so the token is the credential, as with signed
 * storage URLs.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { HttpError } from '../framework/http-error.js';
import type { RequestContext } from '../framework/request-context.js';
import type { Router } from '../framework/router.js';
import { raw, type SandboxResponse, stream } from '../framework/sandbox-response.js';

export type MediaFileBody = { bytes: () => Buffer } | { path: string; size: number };

export interface MediaFile {
  name: string;
  contentType: string;
  body: MediaFileBody;
}

export interface MediaFiles {
  /** Stores a file; returns its path relative to the site (`<base>/files/<token>/<name>`). */
  add(file: MediaFile): string;
  register(router: Router): void;
  clear(): void;
}

export function createMediaFiles(base: string): MediaFiles {
  let files = new Map<string, MediaFile>();

  function serve(request: RequestContext): SandboxResponse {
    const file = files.get(request.params.token!);
    if (!file || file.name !== request.params.name) throw new HttpError(404, 'no such file (or it expired)');
    if ('bytes' in file.body) return raw(200, file.body.bytes(), file.contentType);
    return stream(200, createReadStream(file.body.path), {
      contentType: file.contentType,
      contentLength: file.body.size,
    });
  }

  return {
    add(file) {
      const token = randomBytes(18).toString('base64url');
      files.set(token, file);
      return `${base}/files/${token}/${encodeURIComponent(file.name)}`;
    },
    register(router) {
      router.route('GET', `${base}/files/:token/:name`, serve);
    },
    clear() {
      files = new Map();
    },
  };
}

/** The absolute form of a site-relative path, from the Host the client used. */
export function absoluteUrl(request: RequestContext, relative: string): string {
  const host = request.request.headers.host ?? '127.0.0.1';
  return `http://${host}${relative}`;
}
