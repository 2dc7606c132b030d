import { describe, expect, it } from 'vitest';
import { sanitizeFileName } from './sanitize-file-name.js';

describe('sanitizeFileName', () => {
  it('keeps ordinary names', () => {
    expect(sanitizeFileName('Weekly sync – summary.md')).toBe('Weekly sync – summary.md');
  });

  it('removes separators, traversal and hidden-file dots', () => {
    expect(sanitizeFileName('../secret')).toBe('_secret');
    expect(sanitizeFileName('a/b\\c.txt')).toBe('a_b_c.txt');
    expect(sanitizeFileName('..')).toBe('output');
    expect(sanitizeFileName('.bashrc')).toBe('bashrc');
    expect(sanitizeFileName('')).toBe('output');
  });

  it('removes control and reserved characters and Windows device names', () => {
    expect(sanitizeFileName('a\nb:c*?.txt')).toBe('a_b_c__.txt');
    expect(sanitizeFileName('CON.txt')).toBe('_CON.txt');
  });

  it('shortens very long names but keeps the extension', () => {
    const name = sanitizeFileName(`${'é'.repeat(300)}.vtt`);
    expect(Buffer.byteLength(name)).toBeLessThanOrEqual(200);
    expect(name.endsWith('.vtt')).toBe(true);
  });
});
