/**
 * MCP roots → file confinement. When the client declares `roots`, its roots become extra readable
 * directories (next to POLYMODAL_ALLOWED_DIRS), refreshed on `notifications/roots/list_changed`. Clients
 * without roots (Claude Desktop in many setups) are ignored: the env allowed dirs still apply.
 */
import { fileURLToPath } from 'node:url';
import type { McpServer } from '@modelcontextprotocol/server';
import type { FileAccess } from '@polymodal/core';
import type { Logger } from '../logging/create-logger.js';

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

  const previous = server.server.oninitialized;
  server.server.oninitialized = () => {
    previous?.();
    void refresh();
  };
  server.server.setNotificationHandler('notifications/roots/list_changed', async () => {
    await refresh();
  });

  return {
    ready: () => pending,
    refresh,
  };
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
