/**
 * Where a media download connects, hop by hop: the platform's own origin through its agent (or the
 * caller's dispatcher), any other origin through an agent that refuses non-public addresses when the name
 * is looked up and again once connected. A URL is resolved against the platform's base URL exactly like
 * API paths, and every hop off the platform's origin must be a public http(s) host; https never drops to
 * http.
 */
import type { LookupFunction } from 'node:net';
import type { Dispatcher } from 'undici';
import { ValidationError } from '../errors/polymodal-error.js';
import { Agent } from '../http/undici-parts.js';
import { assertPublicHttpUrl } from '../net/assert-public-http-url.js';
import { createPublicOnlyConnector } from '../net/public-only-connector.js';
import { displayUrl } from './transfer-helpers.js';

export interface MediaRoute {
  readonly platformOrigin: string;
  /** Absolute URL of a service-returned media URL (relative paths resolved like API paths). */
  resolve(raw: string): URL;
  /** The next hop of a redirect, checked. */
  checkHop(url: URL, previous: URL | undefined): URL;
  dispatcherFor(url: URL): Dispatcher;
  close(): Promise<void>;
}

export function createMediaRoute(options: {
  baseUrl: string;
  platformDispatcher: Dispatcher | undefined;
  publicDispatcher: Dispatcher | undefined;
  publicLookup: LookupFunction | undefined;
}): MediaRoute {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const platformOrigin = new URL(`${baseUrl}/`).origin;
  let platformAgent: Agent | undefined;
  let publicAgent: Agent | undefined;
  const checkHop = (url: URL, previous: URL | undefined): URL => {
    if (previous?.protocol === 'https:' && url.protocol === 'http:') {
      throw new ValidationError(
        `The media download was redirected from https to http (${displayUrl(url)}); refusing it.`,
        [{ path: 'url', message: 'insecure redirect' }],
      );
    }
    if (url.origin === platformOrigin) return url;
    return assertPublicHttpUrl(url.href, { field: 'media URL' });
  };
  return {
    platformOrigin,
    checkHop,
    resolve(raw) {
      if (raw.startsWith('/') && !raw.startsWith('//')) return new URL(`${baseUrl}${raw}`);
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        throw new ValidationError(`The media URL ${JSON.stringify(raw)} is neither absolute nor a path.`, [
          { path: 'url', message: 'invalid URL' },
        ]);
      }
      return checkHop(url, undefined);
    },
    dispatcherFor(url) {
      if (url.origin === platformOrigin) {
        if (options.platformDispatcher) return options.platformDispatcher;
        platformAgent ??= new Agent({ keepAliveTimeout: 10_000 });
        return platformAgent;
      }
      if (options.publicDispatcher) return options.publicDispatcher;
      publicAgent ??= new Agent({
        keepAliveTimeout: 10_000,
        connect: createPublicOnlyConnector(options.publicLookup ? { lookup: options.publicLookup } : {}),
      });
      return publicAgent;
    },
    async close() {
      await Promise.all([platformAgent?.close(), publicAgent?.close()]);
    },
  };
}
