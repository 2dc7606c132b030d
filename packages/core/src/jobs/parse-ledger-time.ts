/** A time the ledger holds (ISO) as epoch ms; 0 for none or one that cannot be read, as if long past. */
export function parseLedgerTime(value: string | null | undefined): number {
  if (!value) return 0;
  const parsed = Date.parse(value);
  return Number.isFinite(parsed) ? parsed : 0;
}
