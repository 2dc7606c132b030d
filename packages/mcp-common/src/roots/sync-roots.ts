/**
 * MCP roots → file confinement. When the client declares `roots`, its roots become extra readable
 * directories (next to POLYMODAL_ALLOWED_DIRS), refreshed on `notifications/roots/list_changed`. Clients
 * without roots (Claude Desktop in many setups) are ignored: the env allowed dirs still apply.
 *
 * On 2025-11-25 the roots are asked for once the client has initialized (`roots/list`). A 2026-07-28 client
 * cannot be sent a request: its roots are asked for within the first tool call that reads files (`ready()`),
 * as an input-required result (`askInCall`), when that call's request declares `roots`; they are asked for
 * again after the client says they changed.
 */
import { fileURLToPath } from 'node:url';
import { inputRequired, type McpServer } from '@modelcontextprotocol/server';
import type { FileAccess } from '@polymodal/core';
import type { Logger } from '../logging/create-logger.js';
import {
  askInCall,
  currentCall,
  isModernRequest,
  isRecord,
  requestCapabilities,
} from '../server/call-questions.js';

export interface RootsSync {
  /** Resolves once the latest roots refresh has finished (at once when none is running). */
  ready(): Promise<void>;
  /** Asks the client for its roots again. */
  refresh(): Promise<void>;
  /**
   * Runs one tool call within its session's roots, when roots are per session (a shared context's
   * sessions, see `syncSessionRoots`); absent when they apply to the whole context.
   */
  within?<T>(request: RootsRequest, call: () => Promise<T>): Promise<T>;
}

/** How a tool call asks its client for roots (`roots/list`, related to the call). */
export interface RootsRequest {
  listRoots(options: { timeout: number }): Promise<{ roots: { uri: string }[] }>;
}

export interface SyncRootsOptions {
  log?: Logger;
  /** Upper bound on one roots/list request, so a silent client cannot stall tool calls. */
  timeoutMs?: number;
}

export function syncRoots(server: McpServer, files: FileAccess, options: SyncRootsOptions = {}): RootsSync {
  const timeoutMs = options.timeoutMs ?? 5_000;
  let pending: Promise<void> = Promise.resolve();
  let generation = 0;

  const load = async (ticket: number) => {
    if (!server.server.getClientCapabilities()?.roots) return;
    try {
      const { roots } = await server.server.listRoots(undefined, { timeout: timeoutMs });
      // A slower, older answer must not overwrite a newer one.
      if (ticket !== generation) return;
      const dirs = fileUrisToPaths(roots.map((root) => root.uri));
      files.setRoots(dirs);
      options.log?.debug(`using ${dirs.length} MCP root(s) as readable directories`);
    } catch (error) {
      options.log?.warning('could not read the client roots; only POLYMODAL_ALLOWED_DIRS apply', {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  };

  const refresh = () => {
    generation += 1;
    const ticket = generation;
    pending = load(ticket);
    return pending;
  };

  /** Whether a 2026-07-28 client's roots are known (asked for within a call). */
  let askedInCall = false;
  const askWithinCall = async () => {
    const answer = await askInCall(ROOTS_KEY, inputRequired.listRoots());
    askedInCall = true;
    const dirs = rootDirsOf(answer);
    files.setRoots(dirs);
    options.log?.debug(`using ${dirs.length} MCP root(s) as readable directories`);
  };

  const previous = server.server.oninitialized;
  server.server.oninitialized = () => {
    previous?.();
    void refresh();
  };
  server.server.setNotificationHandler('notifications/roots/list_changed', async () => {
    askedInCall = false;
    const ctx = currentCall();
    if (ctx && isModernRequest(ctx)) return;
    await refresh();
  });

  return {
    ready: () => {
      const ctx = currentCall();
      if (ctx && isModernRequest(ctx) && !askedInCall && requestCapabilities(ctx)?.roots)
        return askWithinCall();
      return pending;
    },
    refresh,
  };
}

/** What a tool call's roots are named within the call (`askInCall`). */
export const ROOTS_KEY = 'roots';

/** The directories of a client's answer to `roots/list`; nothing when the answer is not one. */
export function rootDirsOf(answer: unknown): string[] {
  const roots = isRecord(answer) && Array.isArray(answer.roots) ? answer.roots : [];
  return fileUrisToPaths(
    roots.flatMap((root: unknown) => (isRecord(root) && typeof root.uri === 'string' ? [root.uri] : [])),
  );
}

/** `file://` URIs to local paths; other schemes are not directories we can read and are dropped. */
export function fileUrisToPaths(uris: readonly string[]): string[] {
  const paths: string[] = [];
  for (const uri of uris) {
    try {
      if (new URL(uri).protocol === 'file:') paths.push(fileURLToPath(uri));
    } catch {
      // Malformed URI: not a root we can use.
    }
  }
  return paths;
}
