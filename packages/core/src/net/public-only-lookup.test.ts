import type dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { describe, expect, it } from 'vitest';
import { PolymodalError, PrivateAddressError } from '../errors/polymodal-error.js';
import { createPublicOnlyLookup } from './public-only-lookup.js';

/** A resolver that answers every name with the given addresses. */
function answering(addresses: string[]): typeof dns.lookup {
  const fake = (_hostname: string, _options: unknown, callback: (...args: unknown[]) => void) => {
    callback(
      null,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };
  return fake as unknown as typeof dns.lookup;
}

function resolve(lookup: LookupFunction, all: boolean): Promise<unknown> {
  return new Promise((resolvePromise, reject) => {
    lookup('media.example', { all }, (error, address) => (error ? reject(error) : resolvePromise(address)));
  });
}

describe('createPublicOnlyLookup', () => {
  it.each([
    [['93.184.216.34', '10.0.0.8'], '10.0.0.8'],
    [['10.0.0.8', '93.184.216.34'], '10.0.0.8'],
    [['2606:4700::1111', '2002:7f00:1::'], '2002:7f00:1::'],
    [['93.184.216.34', '::7f00:1'], '::7f00:1'],
    [['93.184.216.34', '64:ff9b::a9fe:a9fe'], '64:ff9b::a9fe:a9fe'],
  ])(
    'refuses an answer %j with one non-public address, since the socket may pick any',
    async (answer, bad) => {
      for (const all of [false, true]) {
        const error = await resolve(createPublicOnlyLookup(answering(answer)), all).catch((caught) => caught);
        expect(error).toMatchObject({ code: 'EPRIVATEADDRESS', hostname: 'media.example', address: bad });
        expect(String(error)).toMatch(/media\.example resolves to .* non-public/);
        // Callers catch every refusal of this client as one family, whichever part refused.
        expect(PolymodalError.isInstance(error) && PrivateAddressError.isInstance(error)).toBe(true);
        expect(error).toMatchObject({ name: 'PrivateAddressError', kind: 'private-address' });
      }
    },
  );

  it('passes an all-public answer through, as one address or all of them', async () => {
    const lookup = createPublicOnlyLookup(answering(['93.184.216.34', '2606:4700::1111']));
    expect(await resolve(lookup, false)).toBe('93.184.216.34');
    expect(await resolve(lookup, true)).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:4700::1111', family: 6 },
    ]);
  });

  it('refuses an empty answer', async () => {
    await expect(resolve(createPublicOnlyLookup(answering([])), true)).rejects.toMatchObject({
      code: 'ENOTFOUND',
    });
  });
});
