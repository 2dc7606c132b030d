import { describe, expect, it } from 'vitest';
import { canonicalJson, fingerprint } from './fingerprint.js';

describe('fingerprint', () => {
  it('ignores key order at every level and undefined members', () => {
    const a = fingerprint({ file: '/a.wav', options: { x: 1, y: [1, { b: 2, a: 1 }] }, skip: undefined });
    const b = fingerprint({ options: { y: [1, { a: 1, b: 2 }], x: 1 }, file: '/a.wav' });
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });

  it('changes when any value changes', () => {
    expect(fingerprint({ size: 1 })).not.toBe(fingerprint({ size: 2 }));
    expect(fingerprint({ a: [1, 2] })).not.toBe(fingerprint({ a: [2, 1] }));
  });

  it('writes canonical JSON', () => {
    expect(canonicalJson({ b: 1, a: 'x', c: null })).toBe('{"a":"x","b":1,"c":null}');
  });
});
