/**
 * A claim's lease: which process holds a submission (`host/pid/random`), until when, and whether that
 * process can still be holding it. A claim lapses when its lease runs out or, on this machine, as soon as
 * its process is gone, so that another process takes the submission over instead of waiting.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { LedgerClaim } from '../ledger/create-job-ledger.js';
import { parseLedgerTime } from './parse-ledger-time.js';

export const DEFAULT_CLAIM_LEASE_MS = 30_000;

export class ClaimLease {
  /** This process, as its claims name it. */
  readonly owner: string;

  constructor(private readonly options: { leaseMs: number; now: () => number; random: () => number }) {
    this.owner = `${hostname()}/${process.pid}/${Math.floor(options.random() * 2 ** 32).toString(36)}`;
  }

  get leaseMs(): number {
    return this.options.leaseMs;
  }

  /** A claim of this process, valid for one lease from now. */
  fresh(): LedgerClaim {
    return {
      owner: this.owner,
      expiresAt: new Date(this.options.now() + this.options.leaseMs).toISOString(),
    };
  }

  /** Whether another process holds `claim` and may still be submitting under it. */
  heldByAnother(claim: LedgerClaim | null | undefined): boolean {
    return this.alive(claim) && claim?.owner !== this.owner;
  }

  /** Whether `claim` has not lapsed: its lease runs, and on this machine its process still exists. */
  alive(claim: LedgerClaim | null | undefined): boolean {
    if (!claim) return false;
    if (parseLedgerTime(claim.expiresAt) <= this.options.now()) return false;
    const [host, pidText] = claim.owner.split('/');
    if (host === hostname() && pidText !== undefined) {
      const pid = Number(pidText);
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && !processAlive(pid)) return false;
    }
    return true;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A killed process stays in the table as a zombie until its parent reaps it; it is dead all the same.
  if (process.platform === 'linux') {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
    } catch {
      return false;
    }
  }
  return true;
}
