import { describe, expect, it } from 'vitest';
import { createCounterRegistry } from './counters.js';
import { createPrng } from './create-prng.js';
import { createFaultEngine } from './fault-engine.js';

describe('createFaultEngine', () => {
  const engine = () => createFaultEngine({ random: createPrng(7), counters: createCounterRegistry() });

  it('adds up latency rules and picks the first terminal rule that matches', () => {
    const faults = engine();
    faults.set([
      { kind: 'latency', latencyMs: 100 },
      { kind: 'latency', latencyMs: 50, match: { method: 'post' } },
      { kind: 'status', status: 500, match: { method: 'GET' } },
      { kind: 'reset-after', match: { path: '^/x$' } },
      { kind: 'truncate' },
    ]);
    expect(faults.decide('POST', '/x')).toEqual({
      latencyMs: 150,
      terminal: { kind: 'reset-after', match: { path: '^/x$' } },
    });
    expect(faults.decide('GET', '/x').terminal?.kind).toBe('status');
    expect(faults.decide('PUT', '/y')).toEqual({ latencyMs: 100, terminal: { kind: 'truncate' } });
  });

  it('a latency rule with retryAfter adds the longest Retry-After to the normal answer', () => {
    const faults = engine();
    faults.set([
      { kind: 'latency', latencyMs: 0, retryAfter: '3', match: { method: 'GET' } },
      { kind: 'latency', latencyMs: 10, retryAfter: '7', match: { path: '^/jobs/' } },
    ]);
    expect(faults.decide('GET', '/jobs/1')).toEqual({ latencyMs: 10, terminal: undefined, retryAfter: '7' });
    expect(faults.decide('GET', '/other')).toEqual({ latencyMs: 0, terminal: undefined, retryAfter: '3' });
    expect(faults.decide('POST', '/other')).toEqual({ latencyMs: 0, terminal: undefined });
  });

  it('spends counted rules and drops them', () => {
    const faults = engine();
    faults.set([{ kind: 'reset-before', count: 2 }]);
    expect(faults.list()[0]?.remaining).toBe(2);
    expect(faults.decide('GET', '/').terminal).toBeDefined();
    expect(faults.decide('GET', '/').terminal).toBeDefined();
    expect(faults.decide('GET', '/').terminal).toBeUndefined();
    expect(faults.list()).toEqual([]);
  });

  it('fires a rate rule about that often, the same way for the same seed', () => {
    const draw = () => {
      const faults = engine();
      faults.set([{ kind: 'status', status: 503, rate: 0.25 }]);
      return Array.from({ length: 400 }, () => faults.decide('GET', '/').terminal !== undefined);
    };
    const first = draw();
    const fired = first.filter(Boolean).length;
    expect(fired).toBeGreaterThan(60);
    expect(fired).toBeLessThan(140);
    expect(draw()).toEqual(first);
  });

  it('considers WebSocket kinds for upgrades only, without spending their hits on HTTP requests', () => {
    const counters = createCounterRegistry();
    const faults = createFaultEngine({ random: createPrng(7), counters });
    faults.set([
      { kind: 'ws-stall', count: 1 },
      { kind: 'ws-malformed', afterEvents: 0, frame: 'x' },
    ]);
    expect(faults.decide('GET', '/stream').terminal).toBeUndefined();
    expect(faults.list()[0]?.remaining).toBe(1);
    expect(counters.snapshot().faults).toEqual({});
    expect(faults.decide('GET', '/stream', { webSocket: true }).terminal?.kind).toBe('ws-stall');
    expect(faults.decide('GET', '/stream', { webSocket: true }).terminal).toEqual({
      kind: 'ws-malformed',
      afterEvents: 0,
      frame: 'x',
    });
    expect(counters.snapshot().faults).toEqual({ 'ws-stall': 1, 'ws-malformed': 1 });
  });

  it('applies HTTP kinds, hang included, to upgrades as well', () => {
    const faults = engine();
    faults.set([{ kind: 'hang' }]);
    expect(faults.decide('GET', '/stream', { webSocket: true }).terminal?.kind).toBe('hang');
    expect(faults.decide('POST', '/jobs').terminal?.kind).toBe('hang');
  });
});
