/**
 * The inputs of one tool call: each argument that may be a local path or an `https://` URL goes through
 * `resolve`, which returns a local path either way (a local path unchanged, so stdio callers see no
 * difference), and `release` gives every download of the call up at its end. An identical URL given twice
 * in one call (a student and a reference recording) is downloaded once.
 */
import type { LookupFunction } from 'node:net';
import type { Dispatcher } from 'undici';
import type { FileAccess } from '../files/create-file-access.js';
import { type FetchRemoteInputOptions, fetchRemoteInput, isRemoteInput } from './fetch-remote-input.js';
import type { RemoteInput } from './held-inputs.js';

export interface RemoteInputsOptions {
  files: FileAccess;
  /** The call's signal (its deadline): a download never outlives the call. */
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Tests only (never read from configuration): see `FetchRemoteInputOptions`. */
  dispatcher?: Dispatcher;
  lookup?: LookupFunction;
  connect?: FetchRemoteInputOptions['connect'];
}

export interface RemoteInputs {
  /** A local path for `value`: itself when it is a path, the downloaded file when it is a URL. */
  resolve(
    value: string,
    options: { field: string; maxBytes: number | (() => Promise<number>) },
  ): Promise<string>;
  /**
   * The error with each downloaded file's path in its message replaced by where it came from, so a refusal
   * of the file (not audio, too long...) names the caller's URL, not a path on this server.
   */
  explain(error: unknown): unknown;
  /** Gives up every download of the call (each is removed once no other call holds it). */
  release(): Promise<void>;
}

export function createRemoteInputs(options: RemoteInputsOptions): RemoteInputs {
  const byUrl = new Map<string, Promise<RemoteInput>>();
  const fetched: RemoteInput[] = [];
  return {
    async resolve(value, { field, maxBytes }) {
      if (!isRemoteInput(value)) return value;
      const key = value.trim();
      let pending = byUrl.get(key);
      if (pending === undefined) {
        pending = fetchRemoteInput({
          url: key,
          files: options.files,
          field,
          maxBytes,
          ...(options.signal ? { signal: options.signal } : {}),
          ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
          ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
          ...(options.lookup ? { lookup: options.lookup } : {}),
          ...(options.connect ? { connect: options.connect } : {}),
        });
        pending.then((input) => fetched.push(input)).catch(() => undefined);
        byUrl.set(key, pending);
      }
      return (await pending).path;
    },
    explain(error) {
      if (!(error instanceof Error) || fetched.length === 0) return error;
      let message = error.message;
      for (const input of fetched)
        message = message.split(input.path).join(`the file downloaded from ${input.url}`);
      if (message !== error.message) error.message = message;
      return error;
    },
    async release() {
      const settled = await Promise.allSettled(byUrl.values());
      byUrl.clear();
      await Promise.all(
        settled.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value.release() : undefined)),
      );
    },
  };
}
