import { describe, expect, it } from 'vitest';
import { hideServerPaths } from './hide-server-paths.js';

describe('hideServerPaths', () => {
  it('names files relative to the directory holding them, the innermost first, and a bare directory vaguely', () => {
    const dirs = ['/srv/polymodal', '/srv/polymodal/tenants/a/out', '/'];
    expect(
      hideServerPaths(
        '/srv/polymodal/tenants/a/out/summary.md exists; /srv/polymodal/rec/x.wav is empty; see /srv/polymodal',
        dirs,
      ),
    ).toBe('summary.md exists; rec/x.wav is empty; see a server directory');
    expect(hideServerPaths('nothing to hide here', dirs)).toBe('nothing to hide here');
    expect(hideServerPaths('/srv/polymodal/x.wav', [])).toBe('/srv/polymodal/x.wav');
  });
});
