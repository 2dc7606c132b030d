import { describe, expect, it } from 'vitest';
import { createLogger, parseLogLevel } from './create-logger.js';

describe('createLogger', () => {
  it('writes redacted lines at or above its level to the injected stderr writer', () => {
    const lines: string[] = [];
    const log = createLogger({
      name: 'test',
      secrets: ['pm_live_abc'],
      level: 'info',
      write: (line) => lines.push(line),
    });
    log.debug('hidden');
    log.info('using key pm_live_abc', { url: '/x?api_key=pm_live_abc' });
    log.addSecret('later-secret');
    log.error('failed with later-secret');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\[test\] info: using key \*\*\* /);
    expect(lines.join('\n')).not.toMatch(/pm_live_abc|later-secret/);
  });

  it('never writes to stdout by default', () => {
    const original = process.stdout.write.bind(process.stdout);
    const stdout: string[] = [];
    const originalErr = process.stderr.write.bind(process.stderr);
    const stderr: string[] = [];
    process.stdout.write = ((chunk: string) => stdout.push(String(chunk)) > 0) as typeof process.stdout.write;
    process.stderr.write = ((chunk: string) => stderr.push(String(chunk)) > 0) as typeof process.stderr.write;
    try {
      createLogger({ name: 'quiet' }).warning('to stderr');
    } finally {
      process.stdout.write = original;
      process.stderr.write = originalErr;
    }
    expect(stdout).toEqual([]);
    expect(stderr.join('')).toContain('to stderr');
  });

  it('parses level names', () => {
    expect(parseLogLevel('WARN')).toBe('warning');
    expect(parseLogLevel('debug')).toBe('debug');
    expect(parseLogLevel('loud')).toBeUndefined();
    expect(parseLogLevel(undefined)).toBeUndefined();
  });
});
