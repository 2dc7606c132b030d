/**
 * A server bin's `tools/list` answer written when the bin is built (`dist/tool-list.json`: the build runs the
 * fresh bin once and keeps its answer, see scripts/tsup-server-package.mjs), served instead of converting every
 * tool's zod schemas to JSON Schema at the first `tools/list`. The conversion took 10–30 ms and left 3 MiB of
 * heap behind in a process that hosts start at launch, often only to list its tools (issue 14).
 *
 * A tool's entry is used only when the file is this server's (name and version) and the entry describes the
 * tool alike: same title, description, annotations, `_meta` and icons (see `installTools`). The input and
 * output schemas come from the same code as the file, so they are taken from it. Any other tool (a file from
 * another version, a tool described otherwise, such as the combined server's `list_jobs` with fewer toolsets,
 * a tool the file does not have) is converted, as without a file. Read on the first `tools/list`, not at start.
 */
import { readFileSync } from 'node:fs';

export interface PrecomputedToolList {
  server: { name: string; version: string };
  /** The tools as the built bin listed them (icons and trimmed schemas included). */
  tools: Record<string, unknown>[];
}

/** The list written beside a bin, read on first use; undefined when it is missing or not a tool list. */
export function readPrecomputedToolList(file: URL): () => PrecomputedToolList | undefined {
  let read: { list: PrecomputedToolList | undefined } | undefined;
  return () => {
    read ??= { list: parseToolList(file) };
    return read.list;
  };
}

function parseToolList(file: URL): PrecomputedToolList | undefined {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as Partial<PrecomputedToolList>;
    if (
      typeof value.server?.name !== 'string' ||
      typeof value.server.version !== 'string' ||
      !Array.isArray(value.tools) ||
      !value.tools.every((tool) => typeof tool?.name === 'string')
    ) {
      return undefined;
    }
    return value as PrecomputedToolList;
  } catch {
    return undefined;
  }
}
