/**
 * The session cap's policy: what gives way when one more legacy session is asked for. A tenant at its own
 * cap gives up its own least recently active idle session. At the global cap, the session given up is one
 * of the tenant holding the most (the asking tenant's own when it holds as many as anyone): so a tenant that
 * opens many sessions closes its own, never those of a tenant holding fewer. A session with a request
 * under way is never closed; when the tenant that must give way has none idle, the new session is refused.
 * The open mode has one anonymous caller (`undefined`): only the global cap applies to it.
 */
import type { SessionLimits } from './session-limits.js';

export interface HeldSession {
  tenantId: string | undefined;
  /** Requests under way in it. */
  inFlight: number;
}

export type RoomForSession<S> = { ok: true; close?: { session: S; why: string } } | { ok: false };

export interface SessionsHeld<S> {
  /** Open sessions, least recently active first. */
  open: readonly S[];
  /** Sessions being opened (their initialize under way), per tenant. */
  opening: ReadonlyMap<string | undefined, number>;
  /** How many are being opened in all. */
  openingCount: number;
}

export function chooseSessionToClose<S extends HeldSession>(
  held: SessionsHeld<S>,
  tenantId: string | undefined,
  limits: Pick<SessionLimits, 'maxSessions' | 'maxSessionsPerTenant'>,
): RoomForSession<S> {
  const perTenant = new Map<string | undefined, number>(held.opening);
  for (const session of held.open) {
    perTenant.set(session.tenantId, (perTenant.get(session.tenantId) ?? 0) + 1);
  }
  const own = perTenant.get(tenantId) ?? 0;
  const atTenantCap = tenantId !== undefined && own >= limits.maxSessionsPerTenant;
  if (!atTenantCap && held.open.length + held.openingCount < limits.maxSessions) return { ok: true };
  let givesWay = tenantId;
  if (!atTenantCap) {
    let most = own;
    for (const [holder, count] of perTenant) {
      if (count > most) {
        most = count;
        givesWay = holder;
      }
    }
  }
  const idle = held.open.find((session) => session.tenantId === givesWay && session.inFlight === 0);
  if (!idle) return { ok: false };
  const why = atTenantCap
    ? "its tenant's session limit was reached and it was that tenant's least recently active"
    : 'the session limit was reached and it was the least recently active of the tenant holding the most';
  return { ok: true, close: { session: idle, why } };
}
