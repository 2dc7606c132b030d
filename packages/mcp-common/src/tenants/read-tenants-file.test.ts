import { createHash } from 'node:crypto';
import { ConfigError } from '@polymodal/core';
import { describe, expect, it } from 'vitest';
import { parseTenantsFile } from './read-tenants-file.js';

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');
const SOURCE = '/etc/polymodal/tenants.json';

function problemOf(text: string): string {
  try {
    parseTenantsFile(text, SOURCE);
  } catch (error) {
    expect(ConfigError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('the file was accepted');
}

describe('parseTenantsFile', () => {
  it('reads tenants, with or without their own platform key', () => {
    const text = JSON.stringify({
      tenants: [
        { id: 'team-a', tokenSha256: hashOf('token-a').toUpperCase(), apiKey: 'pk_team_a' },
        { id: 'team_b2', tokenSha256: hashOf('token-b') },
      ],
    });
    expect(parseTenantsFile(text, SOURCE)).toEqual([
      { id: 'team-a', tokenSha256: hashOf('token-a'), apiKey: 'pk_team_a' },
      { id: 'team_b2', tokenSha256: hashOf('token-b') },
    ]);
  });

  it('names the file and the bad field, and never repeats a value from the file', () => {
    const secret = 'sk_live_do_not_print_me';
    const cases: [string, RegExp][] = [
      [
        `{"tenants": [{"id": "a", "tokenSha256": "${secret}"}]}`,
        /tenants\[0\]\.tokenSha256: must be the sha256/,
      ],
      [
        `{"tenants": [{"id": "a", "token": "${secret}", "tokenSha256": "${hashOf('x')}"}]}`,
        /unknown field\(s\) "token"/,
      ],
      [
        `{"tenants": [{"id": "../${secret}", "tokenSha256": "${hashOf('x')}"}]}`,
        /tenants\[0\]\.id: must be 1 to 63/,
      ],
      [
        `{"tenants": [{"id": "a", "tokenSha256": "${hashOf('x')}", "apiKey": 42}]}`,
        /tenants\[0\]\.apiKey: must be a string/,
      ],
      [
        `{"tenants": [{"id": "a", "tokenSha256": "${hashOf('x')}", "apiKey": "  "}]}`,
        /apiKey: must not be empty/,
      ],
      [`{"tenants": {"id": "a"}}`, /tenants: must be a list of tenants/],
      [`{"tenants": [], "${secret}": 1}`, /unknown field\(s\) \(one whose name is not shown\)/],
      [
        `{"tenants": [{"id": "a", "apiKey": "${secret}" "tokenSha256": "x"}]}`,
        /is not valid JSON \(.*position \d+/,
      ],
    ];
    for (const [text, expected] of cases) {
      const message = problemOf(text);
      expect(message).toMatch(expected);
      expect(message).toContain(SOURCE);
      expect(message).not.toContain(secret);
    }
  });

  it('refuses two tenants with one id or one token, and unsafe or reserved ids', () => {
    const one = hashOf('one');
    expect(
      problemOf(
        JSON.stringify({
          tenants: [
            { id: 'a', tokenSha256: one },
            { id: 'a', tokenSha256: hashOf('two') },
          ],
        }),
      ),
    ).toMatch(/tenants\[1\]\.id: "a" is also the id of tenants\[0\]/);
    expect(
      problemOf(
        JSON.stringify({
          tenants: [
            { id: 'a', tokenSha256: one },
            { id: 'b', tokenSha256: one.toUpperCase() },
          ],
        }),
      ),
    ).toMatch(/tenants\[1\]\.tokenSha256: the same token as tenants\[0\]/);
    for (const id of ['.', '..', 'Team-A', 'a/b', 'a.b', '', 'con', 'lpt1', '-a', 'x'.repeat(64)]) {
      expect(problemOf(JSON.stringify({ tenants: [{ id, tokenSha256: one }] }))).toMatch(/tenants\[0\]\.id/);
    }
  });
});
