/**
 * Users, their keys, sites, features and credits: shared by every service, so that one balance pays for
 * everything a user does.
 */
import type { SandboxFeatures, SandboxUserConfig } from '../config/sandbox-config.js';

export interface SandboxUser {
  id: string;
  name: string;
  site: string;
  /** The team the user's keys belong to (media services record usage under it); defaults to the site. */
  team: string;
  features: SandboxFeatures;
}

export interface KeyRecord {
  userId: string;
  revoked: boolean;
  /** Sandbox-clock milliseconds from which the key is refused. */
  expiresAt: number | undefined;
}

export type FeatureName = keyof SandboxFeatures;

export interface Accounts {
  users(): SandboxUser[];
  user(userId: string): SandboxUser | undefined;
  findKey(key: string): KeyRecord | undefined;
  hasFeature(userId: string, feature: FeatureName): boolean;
  getCredits(userId: string): number;
  setCredits(userId: string, credits: number): void;
  /** Takes `amount` credits when the balance allows it; returns whether it did. */
  charge(userId: string, amount: number): boolean;
  /** Back to the configured balances. */
  reset(): void;
}

export class UnknownUserError extends Error {
  constructor(userId: string) {
    super(`unknown user id "${userId}"`);
    this.name = 'UnknownUserError';
  }
}

export function createAccounts(configured: readonly SandboxUserConfig[]): Accounts {
  const users = new Map<string, SandboxUser>(
    configured.map((user) => [
      user.id,
      {
        id: user.id,
        name: user.name,
        site: user.site,
        team: user.team ?? user.site,
        features: user.features ?? {},
      },
    ]),
  );
  const keys = new Map<string, KeyRecord>();
  for (const user of configured) {
    for (const entry of user.keys) {
      keys.set(entry.key, {
        userId: user.id,
        revoked: entry.revoked ?? false,
        expiresAt: entry.expiresAt === undefined ? undefined : Date.parse(entry.expiresAt),
      });
    }
  }
  const initialCredits = () => new Map(configured.map((user) => [user.id, user.credits]));
  let credits = initialCredits();

  const requireUser = (userId: string) => {
    if (!users.has(userId)) throw new UnknownUserError(userId);
  };

  return {
    users: () => [...users.values()],
    user: (userId) => users.get(userId),
    findKey: (key) => keys.get(key),
    hasFeature(userId, feature) {
      return users.get(userId)?.features[feature] !== false;
    },
    getCredits(userId) {
      requireUser(userId);
      return credits.get(userId) ?? 0;
    },
    setCredits(userId, value) {
      requireUser(userId);
      if (!Number.isFinite(value) || value < 0) throw new RangeError('credits must be a finite number >= 0');
      credits.set(userId, value);
    },
    charge(userId, amount) {
      requireUser(userId);
      const balance = credits.get(userId) ?? 0;
      if (balance < amount) return false;
      credits.set(userId, balance - amount);
      return true;
    },
    reset() {
      credits = initialCredits();
    },
  };
}
