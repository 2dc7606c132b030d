/**
 * Resolves a media reference of a request (a base64 data URL, a same-site `/uploads/...` path or a public
 * http(s) URL) to bytes, with the platform's safety rules: private-network hosts and redirects are refused
 * for remote URLs. The sandbox never touches the network: remote URLs and `/uploads/...` paths answer from
 * the configured `media.publicMedia` table only.
 */

import { isPrivateAddress, isPrivateHostname } from '@polymodal/core/net';
import { HttpError } from '../framework/http-error.js';
import type { PublicMediaEntry } from './media-config.js';
import { readMediaFixture } from './media-fixtures.js';
import { referenceVoiceWav } from './synthesize-voice.js';

export interface ResolvedMedia {
  /** The bytes, or undefined when only the announced size is known (a simulated oversize resource). */
  bytes: Buffer | undefined;
  size: number;
  contentType: string | undefined;
  origin: 'data' | 'uploads' | 'remote';
  entry: PublicMediaEntry | undefined;
}

export interface ResolveMediaOptions {
  /** The reference as sent. */
  url: string;
  /** Name of the field in messages (e.g. `image.url`). */
  field: string;
  publicMedia: Record<string, PublicMediaEntry>;
  maxBytes: number;
  /** Which forms are allowed; all by default. */
  allow?: { data?: boolean; uploads?: boolean; http?: boolean };
}

const FIXTURE_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  webp: 'image/webp',
  mp4: 'video/mp4',
  wav: 'audio/wav',
};

function entryBytes(entry: PublicMediaEntry): Buffer | undefined {
  if (entry.base64 !== undefined) return Buffer.from(entry.base64, 'base64');
  if (entry.fixture === 'wav') return referenceVoiceWav();
  if (entry.fixture !== undefined) return readMediaFixture(entry.fixture);
  return undefined;
}

function tooLarge(field: string, maxBytes: number): HttpError {
  return new HttpError(413, `${field} is too large: the limit is ${maxBytes} bytes`);
}

/** Refuses a remote URL whose host is private; returns the parsed URL. */
export function checkRemoteUrl(url: string, field: string, options: { httpsOnly?: boolean } = {}): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new HttpError(400, `${field} is not a valid URL`);
  }
  const schemes = options.httpsOnly ? ['https:'] : ['http:', 'https:'];
  if (!schemes.includes(parsed.protocol)) {
    throw new HttpError(400, `${field} must be ${options.httpsOnly ? 'an https://' : 'an http(s)'} URL`);
  }
  if (parsed.username || parsed.password) {
    throw new HttpError(400, `${field} must not carry credentials`);
  }
  if (isPrivateHostname(parsed.hostname)) {
    throw new HttpError(400, `${field} points to a private network host; only public hosts are fetched`);
  }
  return parsed;
}

/**
 * Looks a remote URL up in the simulated internet: refuses private addresses it resolves to, redirects
 * and error statuses, and returns the entry.
 */
export function lookUpRemote(
  url: string,
  field: string,
  publicMedia: Record<string, PublicMediaEntry>,
  options: { httpsOnly?: boolean } = {},
): PublicMediaEntry {
  const parsed = checkRemoteUrl(url, field, options);
  const entry = publicMedia[url] ?? publicMedia[parsed.href];
  if (!entry) {
    throw new HttpError(
      400,
      `${field} could not be fetched: the sandbox does not reach the internet and this URL is not in its media.publicMedia table`,
    );
  }
  if (entry.resolvesTo !== undefined && isPrivateAddress(entry.resolvesTo)) {
    throw new HttpError(400, `${field} resolves to a private network address; only public hosts are fetched`);
  }
  if (entry.redirect !== undefined) {
    throw new HttpError(
      400,
      `${field} answered with a redirect; redirects are not followed, give the final URL`,
    );
  }
  if (entry.status !== undefined && entry.status !== 200) {
    throw new HttpError(400, `${field} could not be fetched: the server answered HTTP ${entry.status}`);
  }
  return entry;
}

export function resolveMediaUrl(options: ResolveMediaOptions): ResolvedMedia {
  const { url, field, maxBytes } = options;
  const allow = { data: true, uploads: true, http: true, ...options.allow };
  if (typeof url !== 'string' || url.trim() === '') throw new HttpError(400, `${field} is required`);
  if (url.startsWith('data:')) {
    if (!allow.data) throw new HttpError(400, `${field} does not accept data URLs here`);
    const match = /^data:([^;,]*)(;[^,]*)?,(.*)$/s.exec(url);
    if (!match || !/;base64/i.test(match[2] ?? '')) {
      throw new HttpError(400, `${field} must be a base64 data URL (data:<type>;base64,<data>)`);
    }
    // Checked before decoding so that an oversize payload is refused without allocating it twice.
    if (Math.floor((match[3]!.length * 3) / 4) - 2 > maxBytes) throw tooLarge(field, maxBytes);
    const bytes = Buffer.from(match[3]!, 'base64');
    if (bytes.length > maxBytes) throw tooLarge(field, maxBytes);
    return {
      bytes,
      size: bytes.length,
      contentType: match[1] || undefined,
      origin: 'data',
      entry: undefined,
    };
  }
  let entry: PublicMediaEntry;
  let origin: ResolvedMedia['origin'];
  if (url.startsWith('/')) {
    if (!allow.uploads || !/^\/uploads\/[^/]/.test(url) || url.split('/').includes('..')) {
      throw new HttpError(400, `${field}: same-site paths must be /uploads/...`);
    }
    const found = options.publicMedia[url];
    if (!found || found.status === 404) throw new HttpError(400, `${field}: no such upload ${url}`);
    entry = found;
    origin = 'uploads';
  } else {
    if (!allow.http) throw new HttpError(400, `${field} does not accept remote URLs here`);
    entry = lookUpRemote(url, field, options.publicMedia);
    origin = 'remote';
  }
  const bytes = entryBytes(entry);
  const size = entry.sizeBytes ?? bytes?.length ?? 0;
  if (size > maxBytes) throw tooLarge(field, maxBytes);
  const contentType = entry.contentType ?? (entry.fixture ? FIXTURE_TYPES[entry.fixture] : undefined);
  return { bytes, size, contentType, origin, entry };
}
