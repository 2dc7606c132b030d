/**
 * Downloads a caller's remote input (an `https://` URL given where a tool takes a local file) into the
 * private inputs directory, so that it goes through exactly the same path as a local file afterwards:
 * confinement (`FileAccess.openReadable`), every check of the recording (extension, container signature,
 * duration), the upload.
 *
 * - `https:` only, at every hop: the file travels from a host we do not control, and a plain http hop could
 *   be altered on the way. Credentials in the URL are refused; no header of ours carries any.
 * - Public hosts only: the URL's host by form first (`assertPublicHttpUrl`), then what the name resolves
 *   to and the address each connection reaches (`createPublicOnlyConnector`), so a prompt-injected URL
 *   cannot make this server read an internal service. Redirects are followed by hand (at most five), each
 *   hop checked again.
 * - Capped: a Content-Length over the cap is refused before the body is read, and the bytes are counted
 *   as they stream, so a lying or absent Content-Length cannot fill the disk. Never buffered whole.
 * - Written to a temp file and renamed (0600, in a 0700 directory): a cut-off download leaves nothing.
 *
 * Job ledger identity: the ledger's fingerprint of a local file is its real path, size and modification
 * time. A downloaded file is named by the SHA-256 of its content (plus the extension the URL or the
 * declared type gives) and its modification time is set to a constant, so the same bytes always give the
 * same path, size and time: a repeated call with the same URL (or another URL serving the same bytes)
 * resumes the recorded job instead of paying twice, while changed content is new work. We chose the
 * content over the URL because a URL says nothing about what it serves next time.
 *
 * The file is readable (granted) only while the call holds it, and removed when the last holder releases
 * it (`held-inputs.ts`); an identical URL within one call is downloaded once (see `createRemoteInputs`).
 */

import { constants } from 'node:fs';
import { chmod, mkdir, open, realpath, rename, unlink, utimes } from 'node:fs/promises';
import type { LookupFunction, Socket } from 'node:net';
import path from 'node:path';
import type { buildConnector, Dispatcher } from 'undici';
import { ConnectionError, ValidationError } from '../errors/polymodal-error.js';
import type { FileAccess } from '../files/create-file-access.js';
import { Agent, request } from '../http/undici-parts.js';
import { assertPublicHttpUrl } from '../net/assert-public-http-url.js';
import { createPublicOnlyConnector } from '../net/public-only-connector.js';
import { nodeCrypto } from '../util/builtins.js';
import { holdInput, type RemoteInput, sweepStaleInputs } from './held-inputs.js';
import { discardBody, displayUrl, transferFailure } from './transfer-helpers.js';

export const DEFAULT_REMOTE_INPUT_TIMEOUT_MS = 5 * 60 * 1000;
const MAX_REDIRECTS = 5;
/** The constant modification time of every downloaded input (see the module header): 2000-01-01. */
const INPUT_MTIME_SECONDS = 946_684_800;
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** Extensions for a URL whose path has none, from the declared type (the file's checks decide the rest). */
const EXTENSION_BY_TYPE: Readonly<Record<string, string>> = {
  'audio/wav': '.wav',
  'audio/x-wav': '.wav',
  'audio/wave': '.wav',
  'audio/vnd.wave': '.wav',
  'audio/mpeg': '.mp3',
  'audio/mp3': '.mp3',
  'audio/mp4': '.m4a',
  'audio/x-m4a': '.m4a',
  'audio/flac': '.flac',
  'audio/ogg': '.ogg',
  'video/mp4': '.mp4',
  'video/quicktime': '.mov',
  'video/x-msvideo': '.avi',
  'video/x-matroska': '.mkv',
  'video/webm': '.webm',
  'video/mpeg': '.mpeg',
};

/** Whether a tool argument is a remote input rather than a local path (any URL scheme but file:). */
export function isRemoteInput(value: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(value.trim()) && !/^file:/i.test(value.trim());
}

export interface FetchRemoteInputOptions {
  url: string;
  /** Where the file goes (`files.inputsDir`) and who may read it afterwards (`files.grantInput`). */
  files: FileAccess;
  /**
   * The largest file accepted, in bytes: the service's upload limit. A function is asked only once the URL
   * passed its checks of form (so a malformed or http URL is refused before it is asked, e.g. before a
   * service's limits are read from the platform).
   */
  maxBytes: number | (() => Promise<number>);
  /** Argument name for messages, e.g. `path` or `studentAudioPath`. */
  field: string;
  signal?: AbortSignal;
  timeoutMs?: number;
  /**
   * Dispatcher for the download (tests only: it is not read from any configuration). Default: an agent
   * whose connections refuse non-public addresses when the name is looked up and again once connected.
   */
  dispatcher?: Dispatcher;
  /** Name lookup of that default agent (tests only); the address reached is checked whatever it answers. */
  lookup?: LookupFunction;
  /**
   * Opens the connection for a request instead of the public-only connector (tests only, never from
   * configuration: it lifts the address checks). Resolves to a connected socket, e.g. a loopback server's.
   */
  connect?: (target: { hostname: string; port: string; protocol: string }) => Promise<Socket>;
  /** Clock for the sweep of stale inputs (tests); default Date.now. */
  now?: () => number;
}

export async function fetchRemoteInput(options: FetchRemoteInputOptions): Promise<RemoteInput> {
  const { field } = options;
  const at = { url: checkHop(options.url, field) };
  const maxBytes = typeof options.maxBytes === 'number' ? options.maxBytes : await options.maxBytes();
  const timeoutMs = options.timeoutMs ?? DEFAULT_REMOTE_INPUT_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const ownAgent = options.dispatcher
    ? undefined
    : new Agent({
        connect: options.connect
          ? socketConnector(options.connect)
          : createPublicOnlyConnector(options.lookup ? { lookup: options.lookup } : {}),
      });
  const dispatcher = options.dispatcher ?? (ownAgent as Agent);
  try {
    const response = await follow({ dispatcher, field, signal }, at);
    const declared = checkDeclared(response, { field, url: at.url, maxBytes });
    return await store(response, { options, url: at.url, maxBytes, declared });
  } catch (error) {
    throw transferFailure(error, { url: at.url, signal: options.signal, timeout, timeoutMs });
  } finally {
    await ownAgent?.close();
  }
}

/**
 * Requests `at.url` until a 2xx answer, following at most MAX_REDIRECTS redirects, each hop checked again.
 * `at.url` is the URL reached so far, for the messages of a failure.
 */
async function follow(
  deps: { dispatcher: Dispatcher; field: string; signal: AbortSignal },
  at: { url: URL },
): Promise<Dispatcher.ResponseData> {
  const { field } = deps;
  for (let hop = 0; ; hop++) {
    const url = at.url;
    const response = await request(url, {
      dispatcher: deps.dispatcher,
      method: 'GET',
      // No credentials of any kind: the URL is the caller's, and so is whatever it grants.
      headers: { accept: '*/*', 'user-agent': 'polymodal-core' },
      signal: deps.signal,
    });
    const status = response.statusCode;
    if (status >= 300 && status < 400) {
      await response.body.dump();
      const location = response.headers.location;
      if (typeof location !== 'string' || hop >= MAX_REDIRECTS) {
        throw refusal(
          field,
          `${displayUrl(url)} was redirected ${hop >= MAX_REDIRECTS ? 'too many times' : 'without a location'}`,
          'bad redirect',
        );
      }
      at.url = checkHop(new URL(location, url).href, field);
      continue;
    }
    if (status < 200 || status >= 300) {
      await response.body.dump();
      throw refusal(
        field,
        `${displayUrl(url)} answered HTTP ${status}; give a public, direct link to the file`,
        'download failed',
      );
    }
    return response;
  }
}

/** The declared length and type, refused (the body dropped) when already too large or a web page. */
function checkDeclared(
  response: Dispatcher.ResponseData,
  context: { field: string; url: URL; maxBytes: number },
): { length: number; type: string } {
  const { field, url, maxBytes } = context;
  const length = Number(response.headers['content-length']);
  if (Number.isFinite(length) && length > maxBytes) {
    discardBody(response.body);
    throw tooLarge(field, url, maxBytes, length);
  }
  const type =
    String(response.headers['content-type'] ?? '')
      .split(';')[0]
      ?.trim()
      .toLowerCase() ?? '';
  if (type === 'text/html' || type === 'application/xhtml+xml') {
    // A sign-in or preview page instead of the file: refused now, with a message that says so.
    discardBody(response.body);
    throw refusal(
      field,
      `${displayUrl(url)} returned a web page (${type}), not the file; give a direct link to the file itself`,
      'not a file',
    );
  }
  return { length, type };
}

/**
 * Writes the body to a temp file in the private inputs directory, counted and hashed, then renames it to
 * the name of its content (see the module header) and holds it for the caller.
 */
async function store(
  response: Dispatcher.ResponseData,
  download: {
    options: FetchRemoteInputOptions;
    url: URL;
    maxBytes: number;
    declared: { length: number; type: string };
  },
): Promise<RemoteInput> {
  const { options, url, declared } = download;
  const { files } = options;
  await mkdir(files.inputsDir, { recursive: true, mode: 0o700 });
  // mkdir's mode applies only when it creates the directory; an existing one is made private too.
  await chmod(files.inputsDir, 0o700);
  const directory = await realpath(files.inputsDir);
  await sweepStaleInputs(directory, options.now ?? Date.now);
  let temp: string | undefined = path.join(
    directory,
    `.download-${process.pid}-${nodeCrypto().randomBytes(6).toString('hex')}.tmp`,
  );
  try {
    const { size, digest } = await writeCounted(response.body, temp, {
      maxBytes: download.maxBytes,
      field: options.field,
      url,
    });
    if (Number.isFinite(declared.length) && declared.length !== size) {
      throw new ConnectionError(
        `The download of ${displayUrl(url)} ended after ${size} of ${declared.length} bytes; nothing was kept.`,
        { requestMayHaveArrived: true },
      );
    }
    const target = path.join(directory, `${digest}${extensionOf(url, declared.type)}`);
    await utimes(temp, INPUT_MTIME_SECONDS, INPUT_MTIME_SECONDS);
    // Same name, same bytes: replacing a copy another call holds changes nothing it reads.
    await rename(temp, target);
    temp = undefined;
    return holdInput(files, target, size, displayUrl(url));
  } finally {
    if (temp !== undefined) await unlink(temp).catch(() => undefined);
  }
}

function socketConnector(connect: NonNullable<FetchRemoteInputOptions['connect']>): buildConnector.connector {
  return (target, callback) => {
    connect({ hostname: target.hostname, port: target.port, protocol: target.protocol }).then(
      (socket) => callback(null, socket),
      (error: Error) => callback(error, null),
    );
  };
}

/** Every hop: https, no credentials, a public host by form (what it resolves to is checked on connect). */
function checkHop(value: string, field: string): URL {
  if (/^http:\/\//i.test(value.trim())) {
    throw refusal(
      field,
      'http:// URLs are refused because the file could be altered on the way; give an https:// URL (or a local path)',
      'https only',
    );
  }
  return assertPublicHttpUrl(value, { field, httpsOnly: true });
}

async function writeCounted(
  body: AsyncIterable<Uint8Array>,
  temp: string,
  context: { maxBytes: number; field: string; url: URL },
): Promise<{ size: number; digest: string }> {
  const hash = nodeCrypto().createHash('sha256');
  let size = 0;
  const handle = await open(temp, CREATE_FLAGS, 0o600);
  try {
    for await (const chunk of body) {
      size += chunk.length;
      if (size > context.maxBytes) throw tooLarge(context.field, context.url, context.maxBytes);
      hash.update(chunk);
      // writeFile continues at the current position and loops over short writes.
      await handle.writeFile(chunk);
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
  return { size, digest: hash.digest('hex') };
}

/** The URL's own extension when it has a plausible one, else the declared type's, else none. */
function extensionOf(url: URL, declaredType: string): string {
  let name = url.pathname;
  try {
    name = decodeURIComponent(name);
  } catch {
    // A malformed escape: judge the path as written.
  }
  const extension = path.posix.extname(name).toLowerCase();
  if (/^\.[a-z0-9]{1,5}$/.test(extension)) return extension;
  return EXTENSION_BY_TYPE[declaredType] ?? '';
}

function refusal(field: string, problem: string, reason: string): ValidationError {
  return new ValidationError(`${field}: ${problem}. Nothing was sent to the platform.`, [
    { path: field, message: reason },
  ]);
}

function tooLarge(field: string, url: URL, maxBytes: number, declared?: number): ValidationError {
  return refusal(
    field,
    `the file at ${displayUrl(url)} is ${declared === undefined ? 'larger than' : `${declared} bytes, over`} the ` +
      `${formatBytes(maxBytes)} upload limit of this service (download stopped, nothing kept)`,
    'too large',
  );
}

function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return mib >= 1 ? `${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB` : `${bytes}-byte`;
}
