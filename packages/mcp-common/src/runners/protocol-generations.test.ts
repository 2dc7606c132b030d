import { describe, expect, it } from 'vitest';
import { PROTOCOL_VARIABLE, parseProtocolGenerations } from './protocol-generations.js';

describe('parseProtocolGenerations', () => {
  it('serves both generations by default, and 2025-11-25 only when asked', () => {
    for (const value of [undefined, '', ' all ', 'AUTO']) {
      expect(parseProtocolGenerations(value, PROTOCOL_VARIABLE)).toBe('all');
    }
    expect(parseProtocolGenerations(' 2025-11-25', PROTOCOL_VARIABLE)).toBe('2025-11-25');
  });

  it('refuses anything else, naming the setting and what it accepts', () => {
    for (const value of ['2026-07-28', '2025-06-18', 'legacy']) {
      expect(() => parseProtocolGenerations(value, '--protocol')).toThrow(
        /--protocol must be "all" .* or "2025-11-25"/,
      );
    }
  });
});
