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
import { type PolymodalError, ValidationError } from '../errors/polymodal-error.js';
import type { FileAccess } from '../files/create-file-access.js';
import { request } from '../http/undici-parts.js';
import type { MediaKind } from '../media/sniff-media-type.js';
import { checkedMediaBody, checkMediaHeaders } from './checked-media-body.js';
import { createMediaRoute, type MediaRoute } from './media-route.js';
import { displayUrl, transferFailure } from './transfer-helpers.js';

export const DEFAULT_DOWNLOAD_LIMITS: Readonly<Record<MediaKind, number>> = {
  video: 2 * 1024 * 1024 * 1024,
  audio: 512 * 1024 * 1024,
  image: 64 * 1024 * 1024,
};
export const DEFAULT_DOWNLOAD_TIMEOUT_MS = 5 * 60 * 1000;
const MAX_REDIRECTS = 5;

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

export interface MediaDownloaderOptions {
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
}

export function createMediaDownloader(options: MediaDownloaderOptions): MediaDownloader {
  const { platform } = options;
  const route = createMediaRoute({
    baseUrl: platform.baseUrl,
    platformDispatcher: platform.dispatcher,
    publicDispatcher: options.publicDispatcher,
    publicLookup: options.publicLookup,
  });
  return {
    async download(request_) {
      const { saved, ...rest } = await transfer({ route, platform }, request_, (chunks) =>
        options.files.writeOutput(request_.fileName, chunks),
      );
      return { ...rest, path: saved };
    },
    async fetchBytes(request_) {
      const { saved, ...rest } = await transfer({ route, platform }, request_, async (chunks) => {
        const parts: Uint8Array[] = [];
        for await (const chunk of chunks) parts.push(chunk);
        return Buffer.concat(parts);
      });
      return { ...rest, bytes: saved };
    },
    resolve: (url) => route.resolve(url),
    close: () => route.close(),
  };
}

/** Where a transfer goes and how it may authenticate there. */
interface TransferDeps {
  route: MediaRoute;
  platform: DownloadPlatform;
}

/** One download: follows redirects to the answer, then streams its checked body into `sink`. */
async function transfer<T>(
  deps: TransferDeps,
  request_: FetchMediaOptions,
  sink: (chunks: AsyncIterable<Uint8Array>) => Promise<T>,
): Promise<FetchedMedia & { saved: T }> {
  const maxBytes = request_.maxBytes ?? DEFAULT_DOWNLOAD_LIMITS[request_.kind];
  const timeoutMs = request_.timeoutMs ?? DEFAULT_DOWNLOAD_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = request_.signal ? AbortSignal.any([request_.signal, timeout]) : timeout;
  const at = { url: deps.route.resolve(request_.url) };
  try {
    const response = await follow(deps, at, signal);
    const expected = { url: at.url, kind: request_.kind, maxBytes };
    checkMediaHeaders(response, expected);
    const body = checkedMediaBody(response, expected);
    const saved = await sink(body.chunks);
    return {
      saved,
      size: body.size(),
      contentType: body.contentType() ?? 'application/octet-stream',
      url: displayUrl(at.url),
    };
  } catch (error) {
    throw transferFailure(error, { url: at.url, signal: request_.signal, timeout, timeoutMs });
  }
}

/**
 * Requests `at.url` until a 2xx answer, following at most MAX_REDIRECTS redirects (each hop checked, no
 * credentials with any of them) and asking the platform's origin once more with its key after a 401/403.
 * `at.url` is the URL reached so far, for the messages of a failure.
 */
async function follow(
  deps: TransferDeps,
  at: { url: URL },
  signal: AbortSignal,
): Promise<Dispatcher.ResponseData> {
  const { route, platform } = deps;
  let withAuth = false;
  for (let hop = 0; ; hop++) {
    const url = at.url;
    const headers: Record<string, string> = { accept: '*/*', 'user-agent': 'polymodal-core' };
    if (withAuth && url.origin === route.platformOrigin) Object.assign(headers, platform.authHeaders?.());
    const response = await request(url, {
      dispatcher: route.dispatcherFor(url),
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
      at.url = route.checkHop(next, url);
      continue;
    }
    if ((status === 401 || status === 403) && url.origin === route.platformOrigin && !withAuth) {
      await response.body.dump();
      if (!platform.authHeaders) throw statusError(status, url);
      withAuth = true;
      hop -= 1;
      continue;
    }
    if (status < 200 || status >= 300) {
      await response.body.dump();
      throw statusError(status, url);
    }
    return response;
  }
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
