/**
 * The reference voice of a clone request (`clone_audio`): a registered custom voice
 * (`custom_voices/...`), a saved path (`dir/file` or `/uploads/...`), or a public https:// URL, which
 * needs the voice owner's consent and is resolved under the media safety rules.
 */
import { HttpError } from '../../framework/http-error.js';
import type { PublicMediaEntry } from '../../media/media-config.js';
import { lookUpRemote } from '../../media/resolve-media-url.js';

export type CloneReference =
  | { kind: 'custom'; path: string }
  | { kind: 'saved'; path: string }
  | { kind: 'url'; url: string; entry: PublicMediaEntry };

export function isTruthy(value: unknown): boolean {
  if (value === true) return true;
  if (typeof value === 'number') return value === 1;
  return typeof value === 'string' && ['true', '1', 'yes', 'on'].includes(value.trim().toLowerCase());
}

export interface CloneAudioContext {
  /** The request's `consent` field, required for a public URL. */
  consent: unknown;
  publicMedia: Record<string, PublicMediaEntry>;
}

export function parseCloneAudio(value: string, { consent, publicMedia }: CloneAudioContext): CloneReference {
  const trimmed = value.trim();
  if (trimmed === '') throw new HttpError(400, 'clone_audio must not be empty');
  if (/^[a-z][a-z0-9+.-]*:/i.test(trimmed)) {
    if (!/^https:\/\//i.test(trimmed)) {
      throw new HttpError(400, 'clone_audio URLs must be public https:// URLs');
    }
    if (!isTruthy(consent)) {
      throw new HttpError(
        400,
        'consent is required: clone_audio is a public URL, so confirm with consent=true that the voice owner authorized cloning',
      );
    }
    const entry = lookUpRemote(trimmed, 'clone_audio', publicMedia, { httpsOnly: true });
    return { kind: 'url', url: trimmed, entry };
  }
  const segments = trimmed.replace(/^\//, '').split('/');
  if (segments.some((segment) => segment === '..' || segment === '') || trimmed.includes('\\')) {
    throw new HttpError(400, 'clone_audio must be a saved path without empty or ".." segments');
  }
  if (trimmed.startsWith('custom_voices/')) return { kind: 'custom', path: trimmed };
  if (trimmed.startsWith('/') && !trimmed.startsWith('/uploads/')) {
    throw new HttpError(400, 'clone_audio: absolute saved paths must be /uploads/...');
  }
  if (segments.length < 2) {
    throw new HttpError(
      400,
      'clone_audio must be a custom_voices/... path, a saved path (dir/file) or an https:// URL',
    );
  }
  return { kind: 'saved', path: trimmed };
}
