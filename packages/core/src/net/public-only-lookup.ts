/**
 * A DNS lookup for sockets that refuses private addresses, so a public-looking name that resolves to an
 * internal address (or is re-pointed there between check and connect: DNS rebinding) is refused at the
 * moment of connecting, on the very address used.
 */
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isPrivateAddress } from './private-network.js';

export class PrivateAddressError extends Error {
  readonly code = 'EPRIVATEADDRESS';
  constructor(hostname: string) {
    super(`${hostname} resolves to a private network address; refusing to connect`);
  }
}

export function createPublicOnlyLookup(lookup: typeof dns.lookup = dns.lookup): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) {
        callback(error, '', 0);
        return;
      }
      const list = (Array.isArray(addresses) ? addresses : []) as dns.LookupAddress[];
      const usable = list.filter((entry) => !isPrivateAddress(entry.address));
      if (list.length === 0 || usable.length !== list.length) {
        callback(new PrivateAddressError(hostname), '', 0);
        return;
      }
      if (options.all) {
        (callback as unknown as (error: null, addresses: dns.LookupAddress[]) => void)(null, usable);
        return;
      }
      const first = usable[0] as dns.LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}
