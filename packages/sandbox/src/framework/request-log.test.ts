import { describe, expect, it } from 'vitest';
import { createRequestLog, REQUEST_LOG_LIMIT } from './request-log.js';

const request = (path: string, method = 'GET') => ({
  method,
  path,
  route: `${method} ${path}`,
  at: 1,
  clockAt: 2,
});

describe('createRequestLog', () => {
  it('keeps the newest entries up to its limit, oldest first', () => {
    const log = createRequestLog({ limit: 3 });
    for (const path of ['/a', '/b', '/c', '/d', '/e']) log.record(request(path));
    expect(log.list().map((entry) => entry.path)).toEqual(['/c', '/d', '/e']);
  });

  it('keeps 10 000 by default', () => {
    const log = createRequestLog();
    for (let index = 0; index < REQUEST_LOG_LIMIT + 5; index++) log.record(request(`/${index}`));
    const entries = log.list();
    expect(REQUEST_LOG_LIMIT).toBe(10_000);
    expect(entries).toHaveLength(10_000);
    expect(entries[0]?.path).toBe('/5');
    expect(entries.at(-1)?.path).toBe(`/${REQUEST_LOG_LIMIT + 4}`);
  });

  it('fills in status and user on the live entry, and hands out copies', () => {
    const log = createRequestLog();
    const live = log.record(request('/jobs'));
    expect(log.list()[0]).toMatchObject({ status: undefined, user: undefined });
    live.status = 201;
    live.user = 'user_1';
    const [copy] = log.list();
    expect(copy).toEqual({
      method: 'GET',
      path: '/jobs',
      route: 'GET /jobs',
      at: 1,
      clockAt: 2,
      status: 201,
      user: 'user_1',
    });
    if (copy) copy.status = 500;
    expect(log.list()[0]?.status).toBe(201);
  });

  it('filters by method (any case) and by a path pattern, a global RegExp included', () => {
    const log = createRequestLog();
    for (const [method, path] of [
      ['GET', '/jobs/1'],
      ['POST', '/jobs'],
      ['GET', '/jobs/2'],
      ['GET', '/uploads'],
    ] as const)
      log.record(request(path, method));
    expect(log.list({ method: 'get' }).map((entry) => entry.path)).toEqual([
      '/jobs/1',
      '/jobs/2',
      '/uploads',
    ]);
    expect(log.list({ path: '^/jobs/' }).map((entry) => entry.path)).toEqual(['/jobs/1', '/jobs/2']);
    // A global RegExp keeps lastIndex between tests; the log must not skip every other match.
    expect(log.list({ method: 'GET', path: /jobs/g }).map((entry) => entry.path)).toEqual([
      '/jobs/1',
      '/jobs/2',
    ]);
    expect(() => log.list({ path: '(' })).toThrow(SyntaxError);
  });

  it('clears', () => {
    const log = createRequestLog();
    log.record(request('/a'));
    log.clear();
    expect(log.list()).toEqual([]);
  });
});
