import { describe, expect, it } from 'vitest';
import { createReceiptSigner } from './upload-receipt.js';

describe('createReceiptSigner', () => {
  const claims = { userId: 'user_1', site: 'default', uploadId: 'upl_1', issuedAt: 1_700_000_000_000 };

  it('round-trips the claims of an intact receipt', () => {
    const signer = createReceiptSigner('a-secret-of-enough-length');
    expect(signer.verify(signer.sign(claims))).toEqual(claims);
  });

  it('refuses receipts signed with another secret, altered or malformed', () => {
    const signer = createReceiptSigner('a-secret-of-enough-length');
    const other = createReceiptSigner('another-secret-entirely');
    const receipt = signer.sign(claims);
    expect(other.verify(receipt)).toBeUndefined();
    const [version, , signature] = receipt.split('.');
    const payload = Buffer.from(
      JSON.stringify({ u: 'user_2', s: 'default', r: 'upl_1', t: claims.issuedAt }),
    ).toString('base64url');
    expect(signer.verify(`${version}.${payload}.${signature}`)).toBeUndefined();
    expect(signer.verify('')).toBeUndefined();
    expect(signer.verify('pmr1.x.y')).toBeUndefined();
  });
});
