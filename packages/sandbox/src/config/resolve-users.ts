/**
 * Turns the configured users into the sandbox's accounts, generating the default two users (same site)
 * with fresh keys, plus a revoked and an expired key, when the configuration names none.
 */
import { randomBytes } from 'node:crypto';
import {
  DEFAULT_USER_CREDITS,
  KEY_PREFIX,
  type ParsedSandboxConfig,
  type SandboxUserConfig,
} from './sandbox-config.js';

export interface SandboxKeys {
  /** First active key of the first user. */
  primary: string;
  /** First active key of the second user (the first user's second active key, or its first, when alone). */
  secondary: string;
  /** A revoked key, when one is configured (always in the default configuration). */
  revoked: string | undefined;
  /** An expired key, when one is configured (always in the default configuration). */
  expired: string | undefined;
  /** Every configured key, per user id. */
  byUser: Record<string, string[]>;
}

export function generateKey(): string {
  return `${KEY_PREFIX}_${randomBytes(24).toString('base64url')}`;
}

export function defaultUsers(): SandboxUserConfig[] {
  return [
    {
      id: 'user_1',
      name: 'Sandbox User One',
      site: 'default',
      credits: DEFAULT_USER_CREDITS,
      keys: [
        { key: generateKey() },
        { key: generateKey(), revoked: true },
        { key: generateKey(), expiresAt: '2000-01-01T00:00:00Z' },
      ],
    },
    {
      id: 'user_2',
      name: 'Sandbox User Two',
      site: 'default',
      credits: DEFAULT_USER_CREDITS,
      keys: [{ key: generateKey() }],
    },
  ];
}

export function resolveUsers(config: ParsedSandboxConfig): SandboxUserConfig[] {
  return config.users ?? defaultUsers();
}

/** Picks the keys the sandbox hands to tests and to the CLI output. */
export function pickKeys(users: readonly SandboxUserConfig[], now: number): SandboxKeys {
  const isActive = (entry: { revoked?: boolean | undefined; expiresAt?: string | undefined }) =>
    !entry.revoked && (entry.expiresAt === undefined || Date.parse(entry.expiresAt) > now);
  const activeOf = (user: SandboxUserConfig | undefined) =>
    user?.keys.filter(isActive).map((entry) => entry.key) ?? [];
  const first = activeOf(users[0]);
  const primary = first[0];
  if (primary === undefined)
    throw new Error('the first configured user needs an active (not revoked, not expired) key');
  const secondary = activeOf(users[1])[0] ?? first[1] ?? primary;
  const all = users.flatMap((user) => user.keys);
  return {
    primary,
    secondary,
    revoked: all.find((entry) => entry.revoked)?.key,
    expired: all.find(
      (entry) => !entry.revoked && entry.expiresAt !== undefined && Date.parse(entry.expiresAt) <= now,
    )?.key,
    byUser: Object.fromEntries(users.map((user) => [user.id, user.keys.map((entry) => entry.key)])),
  };
}
