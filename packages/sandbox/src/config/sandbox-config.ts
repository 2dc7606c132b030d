/**
 * The sandbox configuration (users, keys, limits, faults), validated with zod so that a bad file fails at
 * start with a message naming the field, never halfway through a test.
 */
import { z } from 'zod';
import { FaultRule } from '../framework/fault-rule.js';
import { MediaConfig } from '../media/media-config.js';

/** Fixed prefix of every API key; the secret part follows an underscore. */
export const KEY_PREFIX = 'pm_live';
const KEY_PATTERN = /^pm_live_[A-Za-z0-9_-]{8,200}$/;

export const DEFAULT_MAX_UPLOAD_BYTES = 2 * 1024 * 1024 * 1024;
export const DEFAULT_MINIMUM_CREDITS = 10;
export const DEFAULT_MAX_DURATION_SECONDS = 2 * 60 * 60;
export const DEFAULT_USER_CREDITS = 10_000;

export const SandboxKeyConfig = z.strictObject({
  key: z.string().regex(KEY_PATTERN, `must look like ${KEY_PREFIX}_<secret> (secret: 8+ of A-Z a-z 0-9 _ -)`),
  revoked: z.boolean().optional(),
  /** ISO date-time; the key is refused from then on (sandbox clock). */
  expiresAt: z.iso.datetime({ offset: true }).optional(),
});
export type SandboxKeyConfig = z.infer<typeof SandboxKeyConfig>;

/** Feature switches per user; a feature that is off answers 403. All on by default. */
export const SandboxFeatures = z.strictObject({
  meetingSummary: z.boolean().optional(),
});
export type SandboxFeatures = z.infer<typeof SandboxFeatures>;

export const SandboxUserConfig = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1-64 of A-Z a-z 0-9 _ . -'),
  name: z.string().min(1).default('Sandbox user'),
  site: z.string().min(1).default('default'),
  /** Team of the user's keys (media services); defaults to the site. */
  team: z.string().min(1).optional(),
  credits: z.number().finite().min(0).default(DEFAULT_USER_CREDITS),
  keys: z.array(SandboxKeyConfig).min(1, 'each user needs at least one key'),
  features: SandboxFeatures.optional(),
});
export type SandboxUserConfig = z.infer<typeof SandboxUserConfig>;

export const SandboxLimits = z.strictObject({
  maxUploadBytes: z.number().int().positive().default(DEFAULT_MAX_UPLOAD_BYTES),
  minimumCredits: z.number().int().min(0).default(DEFAULT_MINIMUM_CREDITS),
  maxDurationSeconds: z.number().positive().default(DEFAULT_MAX_DURATION_SECONDS),
});
export type SandboxLimits = z.infer<typeof SandboxLimits>;

export const SandboxConfig = z
  .strictObject({
    /** Omitted: two users on one site with generated keys, plus a revoked and an expired key. */
    users: z.array(SandboxUserConfig).min(1).optional(),
    limits: SandboxLimits.default({
      maxUploadBytes: DEFAULT_MAX_UPLOAD_BYTES,
      minimumCredits: DEFAULT_MINIMUM_CREDITS,
      maxDurationSeconds: DEFAULT_MAX_DURATION_SECONDS,
    }),
    /** Secret of the upload receipts' HMAC; random per start when omitted. */
    receiptSecret: z.string().min(16).optional(),
    /** Seed of the pseudo-random choices (fault rates); same seed, same run. */
    seed: z.number().int().default(1),
    faults: z.array(FaultRule).default([]),
    /** Limits and simulated public media of the media services (see media/media-config.ts). */
    media: MediaConfig.prefault({}),
  })
  .superRefine((config, context) => {
    const userIds = new Set<string>();
    const keys = new Set<string>();
    config.users?.forEach((user, userIndex) => {
      if (userIds.has(user.id)) {
        context.addIssue({
          code: 'custom',
          path: ['users', userIndex, 'id'],
          message: `duplicate user id "${user.id}"`,
        });
      }
      userIds.add(user.id);
      user.keys.forEach((entry, keyIndex) => {
        if (keys.has(entry.key)) {
          // The key itself never appears in a message.
          context.addIssue({
            code: 'custom',
            path: ['users', userIndex, 'keys', keyIndex, 'key'],
            message: 'duplicate key',
          });
        }
        keys.add(entry.key);
      });
    });
  });
/** Configuration as written (defaults optional). */
export type SandboxConfig = z.input<typeof SandboxConfig>;
/** Configuration after validation and defaults. */
export type ParsedSandboxConfig = z.output<typeof SandboxConfig>;

export class SandboxConfigError extends Error {
  readonly issues: readonly { path: string; message: string }[];
  constructor(source: string, issues: readonly { path: string; message: string }[]) {
    super(
      `invalid sandbox configuration (${source}):\n${issues.map((issue) => `  - ${issue.path || '(root)'}: ${issue.message}`).join('\n')}`,
    );
    this.name = 'SandboxConfigError';
    this.issues = issues;
  }
}

/** Validates a configuration value; throws `SandboxConfigError` listing every problem. */
export function parseSandboxConfig(value: unknown, source = 'options.config'): ParsedSandboxConfig {
  const result = SandboxConfig.safeParse(value ?? {});
  if (result.success) return result.data;
  throw new SandboxConfigError(
    source,
    result.error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message })),
  );
}
