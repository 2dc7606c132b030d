/**
 * Checks of URLs that leave this machine's trust boundary: a URL an agent hands to the platform (which will
 * fetch it) and a URL this client is about to download from. Both must be plain public http(s) URLs; a
 * private, loopback or link-local host is refused before anything is sent, so a prompt-injected URL cannot
 * point the platform or this process at an internal service.
 *
 * This is a syntactic check of the host as written. Names that resolve to private addresses are caught at
 * connection time by `publicOnlyLookup` (for downloads made here) and by the platform (for URLs it fetches).
 */
import { ValidationError } from '../errors/index.js';
import { isPrivateHostname } from './private-network.js';

export interface PublicUrlOptions {
  /** Argument name for messages, e.g. `image.url`. */
  field: string;
  /** Only `https:` (clone audio). Default: http or https. */
  httpsOnly?: boolean;
}

export function assertPublicHttpUrl(value: string, options: PublicUrlOptions): URL {
  const { field } = options;
  const refuse = (problem: string): never => {
    throw new ValidationError(`${field}: ${problem}. Nothing was sent.`, [{ path: field, message: problem }]);
  };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return refuse('not a valid absolute URL');
  }
  const schemes = options.httpsOnly ? ['https:'] : ['http:', 'https:'];
  if (!schemes.includes(url.protocol)) {
    refuse(`must be an ${options.httpsOnly ? 'https://' : 'http:// or https://'} URL (got ${url.protocol})`);
  }
  if (url.username !== '' || url.password !== '') refuse('must not carry credentials (user:password@)');
  if (isPrivateHostname(url.hostname)) {
    refuse(
      `${url.hostname} is a private, loopback or local-network host; only public hosts are allowed ` +
        '(upload the file, or give a local path, instead)',
    );
  }
  return url;
}
