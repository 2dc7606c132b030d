/**
 * How a ledger entry is stored in a row: fields with a column of their own (times as timestamptz,
 * `request`, `data` and `claim` as JSONB), and every other field — the read schedule's `readingUntil` and
 * `retryAfterFloorMs`, fields a later version adds — in the row's `extra` JSONB, so that none is lost and
 * an optional field needs no migration.
 */
import type { LedgerClaim, LedgerEntry, LedgerPatch, NewLedgerEntry } from '@polymodal/core/ledger';

export interface LedgerRow {
  service: string;
  fingerprint: string;
  id: string | null;
  receipt: string | null;
  receipt_issued_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
  last_status: string;
  title: string | null;
  request: Record<string, unknown> | null;
  data: Record<string, unknown> | null;
  claim: LedgerClaim | null;
  last_read_at: Date | string | null;
  next_read_at: Date | string | null;
  extra: Record<string, unknown> | null;
  revision: number;
}

/** A row's identity (never reused) and its revision; `seq` is a bigint, which pg answers as a string. */
export interface StampRow {
  seq: string | number;
  /** `revision:xmin` (see `ROW_VERSION`). */
  version: string;
}

export type ColumnType = 'text' | 'timestamptz' | 'jsonb';

/** Entry fields with a column of their own; any other field goes to `extra`. */
export const COLUMNS = new Map<string, { column: string; type: ColumnType }>([
  ['id', { column: 'id', type: 'text' }],
  ['receipt', { column: 'receipt', type: 'text' }],
  ['receiptIssuedAt', { column: 'receipt_issued_at', type: 'timestamptz' }],
  ['lastStatus', { column: 'last_status', type: 'text' }],
  ['title', { column: 'title', type: 'text' }],
  ['request', { column: 'request', type: 'jsonb' }],
  ['data', { column: 'data', type: 'jsonb' }],
  ['claim', { column: 'claim', type: 'jsonb' }],
  ['lastReadAt', { column: 'last_read_at', type: 'timestamptz' }],
  ['nextReadAt', { column: 'next_read_at', type: 'timestamptz' }],
]);
/** Identity and bookkeeping: the ledger's own, never taken from a patch. */
export const OWN_FIELDS = new Set(['service', 'fingerprint', 'createdAt', 'updatedAt', 'revision']);

export const SELECTED = [
  'service',
  'fingerprint',
  'id',
  'receipt',
  'receipt_issued_at',
  'created_at',
  'updated_at',
  'last_status',
  'title',
  'request',
  'data',
  'claim',
  'last_read_at',
  'next_read_at',
  'extra',
  'revision',
].join(', ');

export function encode(value: unknown, type: ColumnType): unknown {
  if (value === null) return null;
  // JSON text, not the driver's own conversion: pg would send an array as a PostgreSQL array.
  return type === 'jsonb' ? JSON.stringify(value) : value;
}

function iso(value: Date | string): string;
function iso(value: Date | string | null): string | null;
function iso(value: Date | string | null): string | null {
  if (value === null) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

export function toEntry(row: LedgerRow): LedgerEntry {
  return {
    // First, so that a stray field can never override a column.
    ...(row.extra ?? {}),
    service: row.service,
    fingerprint: row.fingerprint,
    id: row.id,
    receipt: row.receipt,
    receiptIssuedAt: iso(row.receipt_issued_at),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    lastStatus: row.last_status,
    title: row.title,
    ...(row.request === null ? {} : { request: row.request }),
    ...(row.data === null ? {} : { data: row.data }),
    claim: row.claim,
    lastReadAt: iso(row.last_read_at),
    nextReadAt: iso(row.next_read_at),
    revision: row.revision,
  };
}

/** Freezes `value` and every object in it (plain JSON data: objects and arrays; dates are strings here). */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

/** SET clauses for a patch; `values` receives the parameters (never a value in the SQL text). */
export function assignments(patch: LedgerPatch, values: unknown[]): string {
  const sets: string[] = [];
  const extra: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined || OWN_FIELDS.has(field)) continue;
    const target = COLUMNS.get(field);
    if (target) {
      values.push(encode(value, target.type));
      sets.push(`${target.column} = $${values.length}::${target.type}`);
    } else {
      extra[field] = value;
    }
  }
  if (Object.keys(extra).length > 0) {
    values.push(JSON.stringify(extra));
    sets.push(`extra = extra || $${values.length}::jsonb`);
  }
  sets.push('updated_at = now()', 'revision = revision + 1');
  return sets.join(', ');
}

/** The columns and placeholders of a new entry's fields, after the ones already in `values`. */
export function insertion(
  input: NewLedgerEntry,
  values: unknown[],
): { columns: string[]; placeholders: string[] } {
  const columns: string[] = [];
  const placeholders: string[] = [];
  const extra: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(input)) {
    if (value === undefined || OWN_FIELDS.has(field)) continue;
    const target = COLUMNS.get(field);
    if (target) {
      values.push(encode(value, target.type));
      columns.push(target.column);
      placeholders.push(`$${values.length}::${target.type}`);
    } else {
      extra[field] = value;
    }
  }
  values.push(JSON.stringify(extra));
  columns.push('extra');
  placeholders.push(`$${values.length}::jsonb`);
  return { columns, placeholders };
}
