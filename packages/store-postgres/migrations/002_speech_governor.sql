-- 002: the speech concurrency governor shared by server replicas. A platform key (by its sha256, never the
-- key) has one row holding the limit learned from the platform's 429s, and one lease row per unfinished
-- synthesis task; a lease not renewed before expires_at is free again (its replica died).

CREATE TABLE speech_governor_keys (
  key_sha256 text PRIMARY KEY,
  -- concurrentSessions as a 429 reported it; null until one did.
  learned_limit integer CHECK (learned_limit >= 1),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE speech_governor_leases (
  lease_id text PRIMARY KEY,
  key_sha256 text NOT NULL REFERENCES speech_governor_keys (key_sha256) ON DELETE CASCADE,
  -- "host/pid/random" of the replica holding it, for operators.
  holder text NOT NULL,
  acquired_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);

CREATE INDEX speech_governor_leases_live ON speech_governor_leases (key_sha256, expires_at);
