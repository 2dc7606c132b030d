-- 001: the job ledger. One row per request (tenant, service, fingerprint): its claim, job id, upload
-- receipt, last status and last read. Runs inside migrate()'s transaction, with search_path set to the
-- store's schema.

CREATE TABLE job_ledger (
  -- '' until tenants exist; part of every key so that adding them changes no index.
  tenant text NOT NULL DEFAULT '',
  service text NOT NULL,
  fingerprint text NOT NULL,
  id text,
  receipt text,
  receipt_issued_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  last_status text NOT NULL,
  title text,
  request jsonb,
  data jsonb,
  -- {"owner": "host/pid/random", "expiresAt": ISO time}; null when nobody is submitting.
  claim jsonb,
  last_read_at timestamptz,
  next_read_at timestamptz,
  -- Fields a newer engine writes before a migration gives them a column: kept, never dropped.
  extra jsonb NOT NULL DEFAULT '{}'::jsonb,
  revision integer NOT NULL DEFAULT 1 CHECK (revision >= 1),
  -- Insertion order, to keep "newest first" stable among entries created in the same microsecond.
  seq bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (tenant, service, fingerprint)
);

CREATE UNIQUE INDEX job_ledger_job_id ON job_ledger (tenant, service, id) WHERE id IS NOT NULL;
CREATE INDEX job_ledger_newest ON job_ledger (tenant, created_at DESC, seq DESC);
CREATE INDEX job_ledger_service_newest ON job_ledger (tenant, service, created_at DESC, seq DESC);
