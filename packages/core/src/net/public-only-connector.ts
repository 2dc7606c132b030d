/**
 * An undici connector that judges the address a socket actually reached, after TCP connects and before any
 * byte of a request or of a TLS handshake is sent. The name was checked when it was looked up, but what was
 * checked need not be what was dialled: a resolver that answers differently the second time (DNS
 * rebinding), happy eyeballs trying several addresses, or any path that skips the lookup. The socket's
 * remote address is the one fact that cannot drift, so it is checked last.
 */
import type { LookupFunction } from 'node:net';
import type { buildConnector as UndiciBuildConnector } from 'undici';
import { PrivateAddressError } from '../errors/polymodal-error.js';
import { buildConnector } from '../http/undici-parts.js';
import { isPublicAddress } from './classify-address.js';
import { createPublicOnlyLookup } from './public-only-lookup.js';

export interface PublicOnlyConnectorOptions {
  /**
   * Resolves names (default: `createPublicOnlyLookup()`, which refuses non-public answers before dialling).
   * Whatever it answers, the address reached is checked again after connecting.
   */
  lookup?: LookupFunction;
  /** Milliseconds to wait for each of the TCP connect and the TLS handshake (undici's default: 10 s). */
  timeout?: number;
}

export function createPublicOnlyConnector(
  options: PublicOnlyConnectorOptions = {},
): UndiciBuildConnector.connector {
  const connect = buildConnector({
    lookup: options.lookup ?? createPublicOnlyLookup(),
    ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
  });
  return (target, callback) => {
    if (target.httpSocket) {
      // undici hands over a socket only to start TLS inside a proxy tunnel; its peer is the proxy, so its
      // address says nothing about the target. This connector is not meant for proxies.
      connect(target, callback);
      return;
    }
    const tls = target.protocol === 'https:';
    const port = target.port || (tls ? '443' : '80');
    // Plain TCP first, so that the peer is judged before a TLS handshake sends the name to it (and before a
    // certificate error could hide why the connection is wrong).
    connect({ ...target, protocol: 'http:', port }, (error, socket) => {
      if (error) {
        callback(error, null);
        return;
      }
      const address = socket.remoteAddress ?? '';
      if (!isPublicAddress(address)) {
        socket.destroy();
        callback(new PrivateAddressError(target.hostname, address || 'an unknown address', 'connect'), null);
        return;
      }
      if (!tls) {
        callback(null, socket);
        return;
      }
      connect({ ...target, port, httpSocket: socket }, callback);
    });
  };
}
