/**
 * Checks of URLs that leave this machine's trust boundary: a URL an agent hands to the platform (which will
 * fetch it) and a URL this client is about to download from. Both must be plain public http(s) URLs; a
 * private, loopback or link-local host is refused before anything is sent, so a prompt-injected URL cannot
 * point the platform or this process at an internal service.
 *
 * An IP literal is judged by what it is, not how it is spelled: WHATWG URL parsing first turns decimal, hex,
 * octal and short IPv4 forms (`http://2130706433/`, `http://0x7f.1/`, `http://127.1/`) into dotted IPv4, then
 * `classifyAddress` places the address in its range, including the IPv4 address inside an IPv6 one. Names
 * are only judged by their form here; what they resolve to is checked when connecting, by
 * `createPublicOnlyLookup` and `createPublicOnlyConnector` (for downloads made here) and by the platform
 * (for URLs it fetches).
 */
import { ValidationError } from '../errors/polymodal-error.js';
import { classifyAddress } from './classify-address.js';
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
      `${url.hostname} is a private, loopback, local-network or otherwise non-public host${describeRange(url.hostname)}; ` +
        'only public hosts are allowed (upload the file, or give a local path, instead)',
    );
  }
  return url;
}

/** For an IP literal, which special range it is in, so that a refusal of an odd spelling makes sense. */
function describeRange(hostname: string): string {
  const classification = classifyAddress(hostname);
  if (!classification) return '';
  const { range, embedded } = classification;
  return embedded ? ` (${range}, carrying ${embedded.address}: ${embedded.range})` : ` (${range})`;
}
