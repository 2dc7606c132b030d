/**
 * Downloads a finished result (a generated MP4, a WAV) into the output directory.
 *
 * - The URL is the one the service returned: absolute, or a path that is resolved against the platform
 *   base URL exactly like API paths.
 * - No credentials by default. The key is sent only to the platform's own origin, and only after that
 *   origin answered 401/403 without it (the spec does not say whether result URLs need the key). Another
 *   origin (a CDN, a storage bucket) never sees it, not even through a redirect.
 * - Redirects are followed by hand, at most five, each hop checked again: a hop off the platform's origin
 *   must be a public http(s) host, https never drops to http, and credentials never travel with a hop.
 * - Hosts other than the platform's are connected through a lookup that refuses non-public addresses, and
 *   the address each connection actually reached is checked again before anything is sent (DNS rebinding).
 *   The platform's own origin is exempt: it is the configured base URL, which may well be a local sandbox.
 * - The size is checked against Content-Length up front and counted while streaming; the type is checked
 *   by the file's first bytes (and a declared Content-Type must not contradict it, e.g. an HTML error page).
 * - The file is written atomically: a failed or cut-off download leaves nothing behind.
 */
import type { LookupFunction } from 'node:net';
import type { Dispatcher } from 'undici';
import { createApiError } from '../errors/api-error.js';
import { ConnectionError, type PolymodalError, ValidationError } from '../errors/polymodal-error.js';
import type { FileAccess } from '../files/create-file-access.js';
import { Agent, request } from '../http/undici-parts.js';
import { type MediaKind, sniffMediaType } from '../media/sniff-media-type.js';
import { assertPublicHttpUrl } from '../net/assert-public-http-url.js';
import { createPublicOnlyConnector } from '../net/public-only-connector.js';
import { discardBody, displayUrl, transferFailure } from './transfer-helpers.js';

export const DEFAULT_DOWNLOAD_LIMITS: Readonly<Record<MediaKind, number>> = {
  video: 2 * 1024 * 1024 * 1024,
  audio: 512 * 1024 * 1024,
  image: 64 * 1024 * 1024,
};
export const DEFAULT_DOWNLOAD_TIMEOUT_MS = 5 * 60 * 1000;
const MAX_REDIRECTS = 5;
const SNIFF_BYTES = 200;

export interface DownloadPlatform {
  /** Normalised base URL of the platform (see `resolveConfig`). */
  baseUrl: string;
  /** Authentication headers for the platform's origin; asked for only after a 401/403. */
  authHeaders?: () => Record<string, string>;
  /** Dispatcher for the platform's origin (default: a keep-alive agent of this downloader). */
  dispatcher?: Dispatcher;
}

export interface FetchMediaOptions {
  url: string;
  kind: MediaKind;
  maxBytes?: number;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface DownloadMediaOptions extends FetchMediaOptions {
  /** Name of the output file (sanitised by FileAccess). */
  fileName: string;
}

export interface FetchedMedia {
  size: number;
  /** Type recognised from the bytes, e.g. `video/mp4`. */
  contentType: string;
  /** Where the bytes finally came from (after redirects), without credentials. */
  url: string;
}

export interface DownloadedMedia extends FetchedMedia {
  path: string;
}

export interface MediaDownloader {
  /** Streams the media into the output directory (atomically). */
  download(options: DownloadMediaOptions): Promise<DownloadedMedia>;
  /** Reads the media into memory (for small files that are processed further, e.g. WAV parts to join). */
  fetchBytes(options: FetchMediaOptions): Promise<FetchedMedia & { bytes: Buffer }>;
  /** Absolute URL of a service-returned media URL (relative paths resolved like API paths). */
  resolve(url: string): URL;
  close(): Promise<void>;
}

export function createMediaDownloader(options: {
  platform: DownloadPlatform;
  files: FileAccess;
  /**
   * Dispatcher for other origins (tests); default: an agent that refuses non-public addresses when the
   * name is looked up and again once connected.
   */
  publicDispatcher?: Dispatcher;
  /**
   * Name lookup of that default agent (tests); default: one that refuses non-public answers. Whatever it
   * answers, the address a connection reaches is checked again.
   */
  publicLookup?: LookupFunction;
}): MediaDownloader {
  const base = new URL(`${options.platform.baseUrl.replace(/\/+$/, '')}/`);
  const platformOrigin = base.origin;
  let platformAgent: Agent | undefined;
  let publicAgent: Agent | undefined;

  function dispatcherFor(url: URL): Dispatcher {
    if (url.origin === platformOrigin) {
      if (options.platform.dispatcher) return options.platform.dispatcher;
      platformAgent ??= new Agent({ keepAliveTimeout: 10_000 });
      return platformAgent;
    }
    if (options.publicDispatcher) return options.publicDispatcher;
    publicAgent ??= new Agent({
      keepAliveTimeout: 10_000,
      connect: createPublicOnlyConnector(options.publicLookup ? { lookup: options.publicLookup } : {}),
    });
    return publicAgent;
  }

  function resolve(raw: string): URL {
    if (raw.startsWith('/') && !raw.startsWith('//')) {
      return new URL(`${options.platform.baseUrl.replace(/\/+$/, '')}${raw}`);
    }
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new ValidationError(`The media URL ${JSON.stringify(raw)} is neither absolute nor a path.`, [
        { path: 'url', message: 'invalid URL' },
      ]);
    }
    return checkHop(url, undefined);
  }

  /** A URL off the platform's origin must be public; https never drops to http. */
  function checkHop(url: URL, previous: URL | undefined): URL {
    if (previous?.protocol === 'https:' && url.protocol === 'http:') {
      throw new ValidationError(
        `The media download was redirected from https to http (${displayUrl(url)}); refusing it.`,
        [{ path: 'url', message: 'insecure redirect' }],
      );
    }
    if (url.origin === platformOrigin) return url;
    return assertPublicHttpUrl(url.href, { field: 'media URL' });
  }

  async function transfer<T>(
    request_: FetchMediaOptions,
    sink: (chunks: AsyncIterable<Uint8Array>) => Promise<T>,
  ): Promise<FetchedMedia & { saved: T }> {
    const maxBytes = request_.maxBytes ?? DEFAULT_DOWNLOAD_LIMITS[request_.kind];
    const timeoutMs = request_.timeoutMs ?? DEFAULT_DOWNLOAD_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = request_.signal ? AbortSignal.any([request_.signal, timeout]) : timeout;
    let url = resolve(request_.url);
    let withAuth = false;
    try {
      for (let hop = 0; ; hop++) {
        const headers: Record<string, string> = { accept: '*/*', 'user-agent': 'polymodal-core' };
        if (withAuth && url.origin === platformOrigin)
          Object.assign(headers, options.platform.authHeaders?.());
        const response = await request(url, {
          dispatcher: dispatcherFor(url),
          method: 'GET',
          headers,
          signal,
        });
        const status = response.statusCode;
        if (status >= 300 && status < 400) {
          await response.body.dump();
          const location = response.headers.location;
          if (typeof location !== 'string' || hop >= MAX_REDIRECTS) {
            throw new ValidationError(
              `The media download of ${displayUrl(url)} was redirected ${hop >= MAX_REDIRECTS ? 'too many times' : 'without a location'}.`,
              [{ path: 'url', message: 'bad redirect' }],
            );
          }
          const next = new URL(location, url);
          // Credentials never travel with a redirect, even back to the platform.
          withAuth = false;
          url = checkHop(next, url);
          continue;
        }
        if ((status === 401 || status === 403) && url.origin === platformOrigin && !withAuth) {
          await response.body.dump();
          if (!options.platform.authHeaders) throw statusError(status, url);
          withAuth = true;
          hop -= 1;
          continue;
        }
        if (status < 200 || status >= 300) {
          await response.body.dump();
          throw statusError(status, url);
        }
        const declared = Number(response.headers['content-length']);
        if (Number.isFinite(declared) && declared > maxBytes) {
          discardBody(response.body);
          throw tooLarge(url, maxBytes);
        }
        const declaredType =
          String(response.headers['content-type'] ?? '')
            .split(';')[0]
            ?.trim() ?? '';
        if (declaredType !== '' && !typeFits(request_.kind, declaredType)) {
          discardBody(response.body);
          throw new ValidationError(
            `The media at ${displayUrl(url)} is ${declaredType}, not ${request_.kind}; nothing was saved.`,
            [{ path: 'url', message: 'unexpected content type' }],
          );
        }
        let size = 0;
        let sniffed: string | undefined;
        let head = Buffer.alloc(0);
        const body = response.body;
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
              sniffed = sniffMediaType(request_.kind, head) ?? wrongType(request_.kind, url);
            }
            yield buffer;
          }
          if (sniffed === undefined)
            sniffed = sniffMediaType(request_.kind, head) ?? wrongType(request_.kind, url);
          if (Number.isFinite(declared) && declared !== size) {
            throw new ConnectionError(
              `The media download of ${displayUrl(url)} ended after ${size} of ${declared} bytes; nothing was saved.`,
              { requestMayHaveArrived: true },
            );
          }
        }
        const saved = await sink(checked());
        return { saved, size, contentType: sniffed ?? 'application/octet-stream', url: displayUrl(url) };
      }
    } catch (error) {
      throw transferFailure(error, { url, signal: request_.signal, timeout, timeoutMs });
    }
  }

  return {
    async download(request_) {
      const { saved, ...rest } = await transfer(request_, (chunks) =>
        options.files.writeOutput(request_.fileName, chunks),
      );
      return { ...rest, path: saved };
    },
    async fetchBytes(request_) {
      const { saved, ...rest } = await transfer(request_, async (chunks) => {
        const parts: Uint8Array[] = [];
        for await (const chunk of chunks) parts.push(chunk);
        return Buffer.concat(parts);
      });
      return { ...rest, bytes: saved };
    },
    resolve,
    async close() {
      await Promise.all([platformAgent?.close(), publicAgent?.close()]);
    },
  };
}

function statusError(status: number, url: URL): PolymodalError {
  return createApiError({
    status,
    method: 'GET',
    url: displayUrl(url),
    body: undefined,
    serverMessage: `downloading the result failed with HTTP ${status}`,
  });
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
