import { describe, expect, it } from 'vitest';
import { createRouter } from './router.js';
import { json } from './sandbox-response.js';

describe('createRouter', () => {
  const router = createRouter();
  const handler = () => json(200, {});
  router.route('GET', '/api/v1/jobs', handler);
  router.route('POST', '/api/v1/jobs', handler);
  router.route('GET', '/api/v1/jobs/:id', handler);

  it('matches params and names the route by its pattern', () => {
    const match = router.match('get', '/api/v1/jobs/mtg%2042');
    expect(match).toMatchObject({
      kind: 'route',
      params: { id: 'mtg 42' },
      routeKey: 'GET /api/v1/jobs/:id',
    });
  });

  it('tells 405 (known path, other method) from 404', () => {
    expect(router.match('DELETE', '/api/v1/jobs')).toMatchObject({
      kind: 'method-not-allowed',
      allow: ['GET', 'POST'],
    });
    expect(router.match('GET', '/api/v1/job')).toMatchObject({ kind: 'not-found' });
    expect(router.match('GET', '/api/v1/jobs/')).toMatchObject({ kind: 'not-found' });
    expect(router.match('GET', '/api/v1/jobs/a/b')).toMatchObject({ kind: 'not-found' });
  });

  it('refuses a route registered twice', () => {
    expect(() => router.route('GET', '/api/v1/jobs', handler)).toThrow(/twice/);
  });
});
