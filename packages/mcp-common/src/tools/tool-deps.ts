/**
 * What every tool of a Polymodal server receives: the platform context (client, files, ledger, log), the
 * MCP client's roots and the tool deadline. A server's group may build more on it (`toolGroup`'s `deps`).
 */

import type { RemoteInputsOptions } from '@polymodal/core/download';
import type { PlatformContext } from '../context/create-platform-context.js';
import type { RootsSync } from '../roots/sync-roots.js';

export interface ToolDeps {
  /** What the platform gives the server: its client, files, ledger, budget and log. */
  platform: PlatformContext;
  roots: RootsSync;
  /** Seconds one tool call may take before it answers with what it has. */
  toolDeadlineSeconds: number;
  /** How remote inputs reach their hosts (tests only; see `PolymodalServerDeps.remoteInputs`). */
  remoteInputs?: RemoteInputsTestSeam;
}

/** Tests only: how downloads reach a loopback server. Never read from configuration. */
export type RemoteInputsTestSeam = Pick<RemoteInputsOptions, 'connect' | 'lookup'>;
