-- 003: the entries written since a time (the credit budget's "today") found through an index, at the cost
-- of that day's rows rather than the tenant's whole history. Built inside migrate()'s transaction: writes to
-- the ledger wait while it builds (about a second per million rows).

CREATE INDEX job_ledger_updated ON job_ledger (tenant, updated_at);
