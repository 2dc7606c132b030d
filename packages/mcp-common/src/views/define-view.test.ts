import { describe, expect, it } from 'vitest';
import { builtViewFiles } from './define-view.js';

describe('builtViewFiles', () => {
  // Where a package's view module runs from, and where its built view then is.
  it.each([
    ['the bundled bin', 'file:///pkg/dist/main.js'],
    ['the library entry', 'file:///pkg/dist/server.js'],
    ['a chunk of the bin', 'file:///pkg/dist/bin/chunk-AB12CD34.js'],
    ['the sources (tests)', 'file:///pkg/src/views/player-view.ts'],
  ])('finds the built view from %s', (_, from) => {
    const files = builtViewFiles(from, 'player.html').map(String);
    expect(files).toContain('file:///pkg/dist/views/player.html');
  });

  it('looks beside the bin first', () => {
    expect(String(builtViewFiles('file:///pkg/dist/main.js', 'player.html')[0])).toBe(
      'file:///pkg/dist/views/player.html',
    );
  });
});
