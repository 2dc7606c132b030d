/**
 * Upload receipts: an HMAC-SHA256-signed token naming the user, site, upload and issue time. It is the
 * only reference to an uploaded file the job route accepts; tampering breaks the signature.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

export interface ReceiptClaims {
  userId: string;
  site: string;
  uploadId: string;
  /** Sandbox-clock milliseconds. */
  issuedAt: number;
}

const RECEIPT_VERSION = 'pmr1';
const Claims = z.strictObject({ u: z.string(), s: z.string(), r: z.string(), t: z.number().int() });

export interface ReceiptSigner {
  sign(claims: ReceiptClaims): string;
  /** The claims of an intact receipt; undefined when malformed or tampered with. */
  verify(receipt: string): ReceiptClaims | undefined;
}

export function createReceiptSigner(secret: string | Buffer): ReceiptSigner {
  const mac = (payload: string) =>
    createHmac('sha256', secret).update(`${RECEIPT_VERSION}.${payload}`).digest();
  return {
    sign(claims) {
      const payload = Buffer.from(
        JSON.stringify({ u: claims.userId, s: claims.site, r: claims.uploadId, t: claims.issuedAt }),
      ).toString('base64url');
      return `${RECEIPT_VERSION}.${payload}.${mac(payload).toString('base64url')}`;
    },
    verify(receipt) {
      const parts = receipt.split('.');
      if (parts.length !== 3 || parts[0] !== RECEIPT_VERSION) return undefined;
      const [, payload, signature] = parts as [string, string, string];
      const expected = mac(payload);
      const given = Buffer.from(signature, 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
      try {
        const claims = Claims.parse(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
        return { userId: claims.u, site: claims.s, uploadId: claims.r, issuedAt: claims.t };
      } catch {
        return undefined;
      }
    },
  };
}
