import { describe, expect, it } from 'vitest';
import { runInRequestScope } from '../scope/request-scope.js';
import { createLogger, parseLogFormat, parseLogLevel } from './create-logger.js';

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

  it('writes one redacted JSON object per line, with the request id of the request being handled', () => {
    const lines: string[] = [];
    const log = createLogger({
      name: 'json-test',
      secrets: ['pm_live_abc'],
      format: 'json',
      write: (line) => lines.push(line),
    });
    runInRequestScope({ requestId: 'req-42' }, () => {
      log.info('read job with key pm_live_abc', { jobId: 'job_1', level: 'spoofed', url: '/x?api_key=k1' });
    });
    log.warning('outside any request');
    expect(lines).toHaveLength(2);
    const first = JSON.parse(lines[0]!);
    expect(first).toEqual({
      time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      level: 'info',
      name: 'json-test',
      msg: 'read job with key ***',
      jobId: 'job_1',
      url: '/x?api_key=***',
      requestId: 'req-42',
    });
    expect(JSON.parse(lines[1]!)).not.toHaveProperty('requestId');
    expect(lines.join('\n')).not.toContain('pm_live_abc');
  });

  it('parses format names', () => {
    expect(parseLogFormat('JSON')).toBe('json');
    expect(parseLogFormat(' text ')).toBe('text');
    expect(parseLogFormat('yaml')).toBeUndefined();
  });
});
