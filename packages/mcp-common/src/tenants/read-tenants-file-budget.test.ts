import { createHash } from 'node:crypto';
import { ConfigError } from '@polymodal/core';
import { describe, expect, it } from 'vitest';
import { parseTenantsFile } from './read-tenants-file.js';

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');
const SOURCE = '/etc/polymodal/tenants.json';

function problemOf(tenants: unknown[]): string {
  try {
    parseTenantsFile(JSON.stringify({ tenants }), SOURCE);
  } catch (error) {
    expect(ConfigError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('the file was accepted');
}

describe('parseTenantsFile: budget', () => {
  it('reads a daily credit budget per tenant; a tenant without one has none of its own', () => {
    const text = JSON.stringify({
      tenants: [
        { id: 'team-a', tokenSha256: hashOf('a'), budget: { creditsPerDay: 500 } },
        { id: 'team-b', tokenSha256: hashOf('b') },
        { id: 'team-c', tokenSha256: hashOf('c'), budget: { creditsPerDay: 0 } },
      ],
    });
    expect(parseTenantsFile(text, SOURCE)).toEqual([
      { id: 'team-a', tokenSha256: hashOf('a'), budget: { creditsPerDay: 500 } },
      { id: 'team-b', tokenSha256: hashOf('b') },
      { id: 'team-c', tokenSha256: hashOf('c'), budget: { creditsPerDay: 0 } },
    ]);
  });

  it('names the file, the tenant index and the field of a bad budget', () => {
    const good = { id: 'team-a', tokenSha256: hashOf('a') };
    const cases: [unknown, RegExp][] = [
      [{ creditsPerDay: -5 }, /tenants\[1\]\.budget\.creditsPerDay: must be 0 or more/],
      [{ creditsPerDay: 12.5 }, /tenants\[1\]\.budget\.creditsPerDay: must be a whole number of credits/],
      [{ creditsPerDay: '500' }, /tenants\[1\]\.budget\.creditsPerDay: must be a number of credits/],
      [{}, /tenants\[1\]\.budget\.creditsPerDay: must be a number of credits/],
      [500, /tenants\[1\]\.budget: must be an object \{"creditsPerDay": <credits per UTC day>\}/],
      [
        { creditsPerDay: 5, perDay: 5 },
        /tenants\[1\]\.budget: has unknown field\(s\) "perDay"; a budget has creditsPerDay/,
      ],
    ];
    for (const [budget, expected] of cases) {
      const message = problemOf([good, { id: 'team-b', tokenSha256: hashOf('b'), budget }]);
      expect(message).toMatch(expected);
      expect(message).toContain(`POLYMODAL_TENANTS_FILE (${SOURCE})`);
    }
  });
});
