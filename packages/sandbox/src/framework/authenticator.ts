/**
 * API key authentication shared by every service: `x-api-key`, `Authorization: Bearer` and (for
 * WebSockets) an `api_key` query parameter. Errors never echo the key.
 */
import type { IncomingMessage } from 'node:http';
import { KEY_PREFIX } from '../config/sandbox-config.js';
import type { Accounts, SandboxUser } from './accounts.js';
import type { Clock } from './clock.js';
import { HttpError } from './http-error.js';

export type KeyScheme = 'x-api-key' | 'bearer' | 'query';

export interface Principal {
  user: SandboxUser;
}

export interface AuthenticateOptions {
  /** Where the key may come from; the meeting service takes `x-api-key` and `bearer`. */
  schemes: readonly KeyScheme[];
  /** Set by an `auth-unavailable` fault: answer 503 as if the key service were down. */
  unavailable?: boolean;
}

export interface Authenticator {
  authenticate(request: IncomingMessage, url: URL, options: AuthenticateOptions): Principal;
}

const KEY_SHAPE = new RegExp(`^${KEY_PREFIX}_[A-Za-z0-9_-]+$`);

function readKey(request: IncomingMessage, url: URL, schemes: readonly KeyScheme[]): string | undefined {
  for (const scheme of schemes) {
    if (scheme === 'x-api-key') {
      const value = request.headers['x-api-key'];
      const key = Array.isArray(value) ? value[0] : value;
      if (key?.trim()) return key.trim();
    } else if (scheme === 'bearer') {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
      if (match?.[1]) return match[1];
    } else {
      const key = url.searchParams.get('api_key');
      if (key?.trim()) return key.trim();
    }
  }
  return undefined;
}

export function createAuthenticator(options: { accounts: Accounts; clock: Clock }): Authenticator {
  return {
    authenticate(request, url, authOptions) {
      if (authOptions.unavailable) {
        throw new HttpError(503, 'authentication is temporarily unavailable; try again shortly');
      }
      const key = readKey(request, url, authOptions.schemes);
      if (key === undefined) {
        const where = authOptions.schemes
          .map((scheme) =>
            scheme === 'x-api-key'
              ? 'header x-api-key'
              : scheme === 'bearer'
                ? 'Authorization: Bearer'
                : 'query parameter api_key',
          )
          .join(' or ');
        throw new HttpError(401, `missing API key: send it as ${where}`);
      }
      const record = KEY_SHAPE.test(key) ? options.accounts.findKey(key) : undefined;
      if (!record) throw new HttpError(401, `invalid API key: expected a valid ${KEY_PREFIX}_<secret> key`);
      if (record.revoked) throw new HttpError(401, 'API key revoked: create a new key in the dashboard');
      if (record.expiresAt !== undefined && record.expiresAt <= options.clock.now()) {
        throw new HttpError(401, 'API key expired: create a new key in the dashboard');
      }
      const user = options.accounts.user(record.userId);
      if (!user) throw new HttpError(401, 'invalid API key: its account no longer exists');
      return { user };
    },
  };
}
