/**
 * Files a tool saved in the output directory, readable with `resources/read` at
 * `polymodal://outputs/<file name>`: a remote (HTTP) caller cannot open a file:// link to the server's
 * disk, so every server offers its outputs as MCP resources.
 *
 * A name is resolved against the output directory of the *calling* context (a tenant's own over HTTP), so
 * another tenant's file name resolves inside the caller's directory and is simply not found. Names are
 * confined: one path segment (no `/`, `\`, `..`, no absolute path, no hidden or temp files).
 *
 * The directory itself is not trusted either: something other than the tools may put entries there. The
 * tools write every output as a regular file of its own (atomically, see `writeOutput`), so only such a file
 * is listed or served: never a link (which could lead anywhere), a FIFO or a device (whose open or read
 * would wait forever on a thread of the pool every file operation of every tenant shares), or a file with
 * other names (a hard link could be any file the process may read). `resources/list` shows exactly what
 * `resources/read` serves. An entry is looked at with lstat before it is opened, opened without following a
 * link or waiting, and the opened descriptor must be that same file. Reads are capped
 * (`MAX_OUTPUT_RESOURCE_BYTES`): a bigger file is refused with a message naming the cap and, when the tool
 * recorded it, the platform's own URL of the file.
 */
import { constants, type Stats } from 'node:fs';
import { lstat, open, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { McpServer, ReadResourceResult, Resource } from '@modelcontextprotocol/server';
import { ProtocolError, ProtocolErrorCode, ResourceTemplate } from '@modelcontextprotocol/server';
import type { FileAccess } from '@polymodal/core';
import { platformUrlOf } from './output-link.js';

export const OUTPUT_RESOURCE_SCHEME = 'polymodal:';
export const OUTPUT_RESOURCE_PREFIX = 'polymodal://outputs/';
/**
 * The largest output `resources/read` returns (and the largest file a view's app-only tool sends back). The
 * MCP SDK's stdio transport drops the connection on any message over 10 MiB (`STDIO_DEFAULT_MAX_BUFFER_SIZE`,
 * on the client's side: every later request of that session fails), and base64 makes a binary file a third
 * bigger: 7 MiB is 9.33 MiB on the wire with room for the JSON around it. A bigger file is refused with a
 * message, and the session goes on.
 */
export const MAX_OUTPUT_RESOURCE_BYTES = 7 * 1024 * 1024;
/** How many of the newest outputs `resources/list` shows. */
const LISTED_OUTPUTS = 50;

const MIME_TYPES: Readonly<Record<string, string>> = {
  '.md': 'text/markdown',
  '.txt': 'text/plain',
  '.srt': 'application/x-subrip',
  '.vtt': 'text/vtt',
  '.json': 'application/json',
  '.csv': 'text/csv',
  '.html': 'text/html',
  '.wav': 'audio/wav',
  '.mp3': 'audio/mpeg',
  '.m4a': 'audio/mp4',
  '.mp4': 'video/mp4',
  '.mov': 'video/quicktime',
  '.webm': 'video/webm',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
};

/** The resource URI of an output file name. */
export function outputResourceUri(fileName: string): string {
  return `${OUTPUT_RESOURCE_PREFIX}${encodeURIComponent(fileName)}`;
}

/** The mime type of an output by its extension (the names are ours: the tools choose them). */
export function outputMimeType(fileName: string): string {
  return MIME_TYPES[path.extname(fileName).toLowerCase()] ?? 'application/octet-stream';
}

function formatLimit(bytes: number): string {
  return bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0
    ? `${bytes / (1024 * 1024)} MiB`
    : `${bytes}-byte`;
}

function isTextType(mimeType: string): boolean {
  return (
    mimeType.startsWith('text/') || mimeType === 'application/json' || mimeType === 'application/x-subrip'
  );
}

/** A name that can only mean a file directly inside the output directory, or undefined. */
function confinedName(raw: string): string | undefined {
  let name: string;
  try {
    name = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  if (name === '' || name.length > 255 || name.includes('\0')) return undefined;
  if (name.includes('/') || name.includes('\\') || name === '.' || name === '..') return undefined;
  // Hidden names are the atomic writer's temp files, never a finished output.
  if (name.startsWith('.') || path.isAbsolute(name)) return undefined;
  return name;
}

// O_NOFOLLOW: a link swapped in after the lstat is not followed; O_NONBLOCK: nor does a FIFO swapped in
// make the open wait for a writer (it has no effect on the reads of a regular file).
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** Whether an entry of the output directory is one the tools wrote: a regular file with no other name. */
function isServedOutput(stats: Stats): boolean {
  return stats.isFile() && stats.nlink === 1;
}

function notFound(uri: string): ProtocolError {
  // -32002 is the MCP's "resource not found".
  return new ProtocolError(
    -32002,
    `Resource not found: ${uri}. list the resources to see the saved outputs.`,
    {
      uri,
    },
  );
}

/** Reads one output of `files`'s output directory, confined and capped. */
export async function readOutputResource(
  files: FileAccess,
  uri: string,
  rawName: string,
  maxBytes: number = MAX_OUTPUT_RESOURCE_BYTES,
): Promise<ReadResourceResult> {
  const name = confinedName(rawName);
  if (name === undefined) throw notFound(uri);
  let file: string;
  let entry: Stats;
  try {
    file = path.join(await realpath(files.outputDir), name);
    // lstat, not stat: a link, a FIFO or a device is refused without ever being opened.
    entry = await lstat(file);
  } catch {
    throw notFound(uri);
  }
  if (!isServedOutput(entry)) throw notFound(uri);
  const handle = await open(file, READ_FLAGS).catch(() => {
    throw notFound(uri);
  });
  try {
    // What is read must be the very file looked at: nothing swapped in between.
    const stats = await handle.stat();
    if (!isServedOutput(stats) || stats.dev !== entry.dev || stats.ino !== entry.ino) throw notFound(uri);
    const mimeType = outputMimeType(name);
    if (stats.size > maxBytes) {
      const platformUrl = platformUrlOf(file);
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        `${name} is ${stats.size} bytes, over the ${formatLimit(maxBytes)} limit of resources/read; ` +
          (platformUrl
            ? `download it from the platform instead: ${platformUrl}`
            : 'use the link in the tool result (or a smaller export) instead'),
      );
    }
    const bytes = await handle.readFile();
    const content = isTextType(mimeType)
      ? { uri, mimeType, text: bytes.toString('utf8') }
      : { uri, mimeType, blob: bytes.toString('base64') };
    return { contents: [content] };
  } finally {
    await handle.close();
  }
}

/** The newest outputs of `files`'s output directory, as `resources/list` entries. */
export async function listOutputResources(files: FileAccess) {
  const names = await readdir(files.outputDir).catch(() => [] as string[]);
  const entries: { name: string; size: number; mtimeMs: number }[] = [];
  for (const name of names) {
    if (confinedName(encodeURIComponent(name)) === undefined) continue;
    // The same rule as resources/read, by lstat: a link is never followed to report its target's size.
    const stats = await lstat(path.join(files.outputDir, name)).catch(() => undefined);
    if (stats && isServedOutput(stats)) entries.push({ name, size: stats.size, mtimeMs: stats.mtimeMs });
  }
  entries.sort((left, right) => right.mtimeMs - left.mtimeMs);
  return {
    resources: entries.slice(0, LISTED_OUTPUTS).map((entry) => ({
      uri: outputResourceUri(entry.name),
      name: entry.name,
      mimeType: outputMimeType(entry.name),
      size: entry.size,
    })),
  };
}

/**
 * Registers `polymodal://outputs/{name}` on a server, reading the output directory of `files` (the
 * server's context's: one per tenant over HTTP). Returns how `resources/list` lists them (the installer
 * answers that request, see `sdk-server.ts`): each output with the template's title and description, as the
 * SDK lists what a template lists.
 */
export function registerOutputResources(
  server: McpServer,
  files: FileAccess,
): { list: () => Promise<Resource[]> } {
  const metadata = {
    title: 'Saved outputs',
    description: `Files the tools saved (exports, speech, videos, flashcards), up to ${formatLimit(MAX_OUTPUT_RESOURCE_BYTES)} each.`,
  };
  const list = () => listOutputResources(files);
  server.registerResource(
    'outputs',
    new ResourceTemplate(`${OUTPUT_RESOURCE_PREFIX}{name}`, { list }),
    metadata,
    (uri, variables) => {
      const raw = variables.name;
      return readOutputResource(files, uri.href, typeof raw === 'string' ? raw : '');
    },
  );
  return {
    list: async () => (await list()).resources.map((resource) => ({ ...metadata, ...resource })),
  };
}
