/**
 * A DNS lookup for sockets that refuses any answer that is not an ordinary public address, so a
 * public-looking name that resolves to an internal address is refused before a connection is attempted.
 * Every address of the answer is judged, not just the first: the socket (happy eyeballs) or undici may
 * use any of them. `createPublicOnlyConnector` checks the address actually reached as well.
 */
import type dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { PrivateAddressError } from '../errors/polymodal-error.js';
import { nodeDns } from '../util/builtins.js';
import { isPublicAddress } from './classify-address.js';

/** `lookup`: how names are resolved (default: Node's `dns.lookup`, loaded with the first lookup). */
export function createPublicOnlyLookup(lookup?: typeof dns.lookup): LookupFunction {
  return (hostname, options, callback) => {
    (lookup ?? nodeDns().lookup)(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) {
        callback(error, '', 0);
        return;
      }
      const list = (Array.isArray(addresses) ? addresses : []) as dns.LookupAddress[];
      if (list.length === 0) {
        callback(
          Object.assign(new Error(`${hostname} resolves to no address`), { code: 'ENOTFOUND' }),
          '',
          0,
        );
        return;
      }
      const refused = list.find((entry) => !isPublicAddress(entry.address));
      if (refused) {
        callback(new PrivateAddressError(hostname, refused.address), '', 0);
        return;
      }
      if (options.all) {
        callback(null, list);
        return;
      }
      const first = list[0] as dns.LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}
