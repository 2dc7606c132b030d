/**
 * The two annotation sets most Polymodal tools share, so every server marks them alike: reads of the
 * platform, and calls that start (possibly paid) work on it.
 */
export const READ_ONLY_ANNOTATIONS = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: true,
} as const;

/** Starts work on the platform: never read-only (it may cost credits or quota), not repeatable for free. */
export const PLATFORM_WORK_ANNOTATIONS = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true,
} as const;
