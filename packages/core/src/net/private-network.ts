/**
 * Tells hosts of the local network (private, loopback, link-local and other non-public addresses, and names
 * that only make sense inside a network) apart from public ones, so that no service fetches (or pretends
 * to fetch) anything inside the network it runs in. Addresses are judged by `classifyAddress`.
 */
import { classifyAddress } from './classify-address.js';

const PRIVATE_NAMES = /(^|\.)(localhost|local|internal|intranet|lan|home\.arpa|localdomain)$/i;

/**
 * True for an IP address that is not an ordinary public one. False for host names: they are judged by
 * `isPrivateHostname`, or by what they resolve to.
 */
export function isPrivateAddress(address: string): boolean {
  const classification = classifyAddress(address);
  return classification !== undefined && !classification.public;
}

/**
 * True for a URL host that names the local network: an IP literal that is not public (give the host as
 * WHATWG URL parsing leaves it, which already turns decimal, hex, octal and short IPv4 spellings into
 * dotted IPv4), `localhost` and local-only suffixes, or a single-label name.
 */
export function isPrivateHostname(hostname: string): boolean {
  const bare = hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  const classification = classifyAddress(bare);
  if (classification) return !classification.public;
  if (bare === '' || !bare.includes('.')) return true;
  return PRIVATE_NAMES.test(bare);
}
