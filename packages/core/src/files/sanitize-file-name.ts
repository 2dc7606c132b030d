/**
 * Turns an arbitrary name (often chosen by a model) into one safe file name: no directory parts, no
 * traversal, no hidden or reserved names, portable characters only.
 */

const MAX_NAME_BYTES = 200;
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;

export function sanitizeFileName(name: string): string {
  let safe = name
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f/\\:*?"<>|]/g, '_')
    .replace(/\s+/g, ' ')
    .trim()
    // Leading dots would make the file hidden (or be `.`/`..`); trailing dots and spaces break on Windows.
    .replace(/^[.\s]+/, '')
    .replace(/[.\s]+$/, '');
  if (WINDOWS_RESERVED.test(safe)) safe = `_${safe}`;
  if (Buffer.byteLength(safe) > MAX_NAME_BYTES) {
    const dot = safe.lastIndexOf('.');
    const extension = dot > 0 && safe.length - dot <= 10 ? safe.slice(dot) : '';
    let stem = safe.slice(0, safe.length - extension.length);
    while (Buffer.byteLength(stem + extension) > MAX_NAME_BYTES)
      stem = Array.from(stem).slice(0, -1).join('');
    safe = stem + extension;
  }
  return safe === '' ? 'output' : safe;
}
