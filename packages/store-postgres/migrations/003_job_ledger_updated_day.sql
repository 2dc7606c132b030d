-- 003: the entries written since a time (the credit budget's "today") found through an index, at the cost
-- of those days' rows rather than the tenant's whole history. The index is on the UTC day of the last write,
-- not on its instant: a row written again on the same day keeps its indexed value, so the status reads'
-- frequent writes stay heap-only (HOT) updates that touch no index. Adding the stored column rewrites the
-- table once, inside migrate()'s transaction: writes to the ledger wait while it runs (a few seconds per
-- million rows).

ALTER TABLE job_ledger
  ADD COLUMN updated_day date GENERATED ALWAYS AS ((updated_at AT TIME ZONE 'UTC')::date) STORED;
CREATE INDEX job_ledger_updated_day ON job_ledger (tenant, updated_day);
