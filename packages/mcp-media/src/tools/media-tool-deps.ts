/**
 * What every tool of the media server receives, and the helpers they share: turning a path-or-URL
 * argument into a media reference, and saving finished media.
 */
import path from 'node:path';
import { type MediaKind, readMediaAsDataUrl } from '@polymodal/core/media';
import type { ResourceLink } from '@polymodal/mcp-common';
import { outputLink, type ToolDeps } from '@polymodal/mcp-common';

/** An http(s) URL, a same-site `/uploads/...` path or a data URL: handed to the platform as is. */
export function isRemoteReference(value: string): boolean {
  return /^(https?:\/\/|data:)/i.test(value) || value.startsWith('/uploads/');
}

/**
 * The reference the platform gets for a path-or-URL argument: remote references as they are (the client
 * checks them), local files (confined to the allowed directories) as data URLs after type and size checks.
 */
export async function mediaReference(
  deps: ToolDeps,
  value: string,
  kind: MediaKind,
  field: string,
): Promise<string> {
  if (isRemoteReference(value)) return value;
  const { dataUrl } = await readMediaAsDataUrl(value, { kind, field, files: deps.platform.files });
  return dataUrl;
}

export interface SavedMedia {
  savedPath: string;
  sizeBytes: number;
  contentType: string;
  link: ResourceLink;
}

/** Downloads finished media into the output directory and describes it as a resource link. */
export async function saveMedia(
  deps: ToolDeps,
  options: { url: string; kind: MediaKind; fileName: string; description: string; signal?: AbortSignal },
): Promise<SavedMedia> {
  const saved = await deps.platform.client.media.download({
    url: options.url,
    kind: options.kind,
    fileName: options.fileName,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return {
    savedPath: saved.path,
    sizeBytes: saved.size,
    contentType: saved.contentType,
    link: outputLink(saved.path, {
      mimeType: saved.contentType,
      description: options.description,
      size: saved.size,
      // Named when the file is too big for resources/read.
      platformUrl: deps.platform.client.media.resolve(options.url).href,
    }),
  };
}

/** A caller's file name with the right extension, or the default. */
export function outputName(given: string | undefined, fallback: string, extension: string): string {
  if (!given) return fallback;
  const base = path.basename(given);
  return base.toLowerCase().endsWith(extension) ? base : `${base}${extension}`;
}
