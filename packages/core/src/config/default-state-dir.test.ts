import { describe, expect, it } from 'vitest';
import { defaultStateDir } from './default-state-dir.js';

describe('defaultStateDir', () => {
  it('prefers POLYMODAL_STATE_DIR', () => {
    expect(defaultStateDir({ POLYMODAL_STATE_DIR: '/srv/polymodal' }, 'linux')).toBe('/srv/polymodal');
  });

  it('follows XDG on Linux, ignoring a relative XDG_STATE_HOME', () => {
    expect(defaultStateDir({ HOME: '/home/ana', XDG_STATE_HOME: '/state' }, 'linux')).toBe(
      '/state/polymodal',
    );
    expect(defaultStateDir({ HOME: '/home/ana', XDG_STATE_HOME: 'rel' }, 'linux')).toBe(
      '/home/ana/.local/state/polymodal',
    );
  });

  it('uses Application Support on macOS and LOCALAPPDATA on Windows', () => {
    expect(defaultStateDir({ HOME: '/Users/ana' }, 'darwin')).toBe(
      '/Users/ana/Library/Application Support/polymodal',
    );
    expect(defaultStateDir({ LOCALAPPDATA: 'C:\\Users\\ana\\AppData\\Local' }, 'win32')).toBe(
      'C:\\Users\\ana\\AppData\\Local\\polymodal',
    );
  });
});
