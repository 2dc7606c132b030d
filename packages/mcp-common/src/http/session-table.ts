/**
 * The open legacy (2025-11-25) sessions and those being opened, kept in order of activity (the most
 * recently active last, so that the idle sweep and the cap look at the front only). A session belongs to
 * the tenant that opened it. Closing a session forgets it at once, before its transport and server are
 * closed, so that no request finds it half closed.
 */
import type http from 'node:http';
import type { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { Logger } from '../logging/create-logger.js';
import { chooseSessionToClose } from './choose-session-to-close.js';
import type { SessionLimits } from './session-limits.js';

export interface LegacySession {
  readonly id: string;
  readonly transport: NodeStreamableHTTPServerTransport;
  /** The tenant that opened the session; only its requests may use it. */
  readonly tenantId: string | undefined;
  lastActive: number;
  /** POST and DELETE requests under way (a GET stream may stay open for ever and does not count). */
  inFlight: number;
  /** Closes the session's server and runs its cleanup, at most once. */
  readonly dispose: () => Promise<void>;
}

export interface SessionTable {
  size(): number;
  /** The open session with this id, whoever holds it. */
  find(id: string): LegacySession | undefined;
  add(session: LegacySession): void;
  /** Counts a request in the session until its response closes; the session is then marked active. */
  countRequest(session: LegacySession, response: http.ServerResponse): void;
  /** Marks the session as just active. */
  touch(session: LegacySession): void;
  close(session: LegacySession, why: string): Promise<void>;
  /** Forgets the session of this transport, if still open (its server closed it). */
  forget(id: string | undefined, transport: NodeStreamableHTTPServerTransport): void;
  /** Closes the sessions idle for longer than the idle time, unless a request is under way in one. */
  closeIdle(): void;
  /** Makes room for one more session of `tenantId` (see `chooseSessionToClose`); false when there is none. */
  makeRoomFor(tenantId: string | undefined): boolean;
  /** Counts a session of `tenantId` as being opened, until `endOpening`: it holds its place in the caps. */
  startOpening(tenantId: string | undefined): void;
  endOpening(tenantId: string | undefined): void;
  closeTenant(tenantId: string, why: string): void;
  closeAll(why: string): Promise<void>;
}

export function createSessionTable(
  limits: SessionLimits,
  clock: () => number,
  log: Logger | undefined,
): SessionTable {
  const sessions = new Map<string, LegacySession>();
  const openingByTenant = new Map<string | undefined, number>();
  let openingCount = 0;

  const touch = (session: LegacySession) => {
    session.lastActive = clock();
    sessions.delete(session.id);
    sessions.set(session.id, session);
  };

  const close = async (session: LegacySession, why: string) => {
    if (sessions.get(session.id) !== session) return;
    sessions.delete(session.id);
    log?.debug(`MCP session closed: ${why}`, { sessions: sessions.size });
    await session.transport.close().catch(() => {});
    await session.dispose();
  };

  return {
    size: () => sessions.size,
    find: (id) => sessions.get(id),
    add(session) {
      sessions.set(session.id, session);
    },
    countRequest(session, response) {
      session.inFlight += 1;
      response.once('close', () => {
        session.inFlight -= 1;
        if (sessions.get(session.id) === session) touch(session);
      });
    },
    touch,
    close,
    forget(id, transport) {
      if (id !== undefined && sessions.get(id)?.transport === transport) sessions.delete(id);
    },
    closeIdle() {
      const now = clock();
      for (const session of sessions.values()) {
        if (now - session.lastActive < limits.idleMs) break;
        if (session.inFlight === 0) void close(session, 'idle');
      }
    },
    makeRoomFor(tenantId) {
      const room = chooseSessionToClose(
        { open: [...sessions.values()], opening: openingByTenant, openingCount },
        tenantId,
        limits,
      );
      if (room.ok && room.close) void close(room.close.session, room.close.why);
      return room.ok;
    },
    startOpening(tenantId) {
      openingCount += 1;
      openingByTenant.set(tenantId, (openingByTenant.get(tenantId) ?? 0) + 1);
    },
    endOpening(tenantId) {
      openingCount -= 1;
      const left = (openingByTenant.get(tenantId) ?? 1) - 1;
      if (left > 0) openingByTenant.set(tenantId, left);
      else openingByTenant.delete(tenantId);
    },
    closeTenant(tenantId, why) {
      for (const session of sessions.values()) {
        if (session.tenantId === tenantId) void close(session, why);
      }
    },
    async closeAll(why) {
      await Promise.allSettled([...sessions.values()].map((session) => close(session, why)));
    },
  };
}
