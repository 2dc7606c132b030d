import { ConfigError, LedgerError } from '@polymodal/core';
import { describe, expect, it } from 'vitest';
import { describeDatabaseUrl, redactSecrets } from './describe-database-url.js';
import { toLedgerError } from './to-ledger-error.js';

describe('describeDatabaseUrl', () => {
  it('masks the password in the location and lists it in every form as a secret', () => {
    const url = 'postgres://app:p%40ss%2Fw0rd@db.internal:6432/jobs?sslmode=require';
    const { location, secrets } = describeDatabaseUrl(url);
    expect(location).toBe('postgres://app:***@db.internal:6432/jobs?sslmode=require');
    expect(secrets).toEqual(expect.arrayContaining([url, 'p%40ss%2Fw0rd', 'p@ss/w0rd']));
  });

  it('masks a password given as a query parameter, and shows a socket host', () => {
    const { location, secrets } = describeDatabaseUrl(
      'postgresql:///jobs?host=/var/run/postgresql&password=hunter2',
    );
    expect(location).toBe('postgresql:///jobs?host=/var/run/postgresql&password=***');
    expect(secrets).toContain('hunter2');
    expect(describeDatabaseUrl('postgres://db/jobs').location).toBe('postgres://db/jobs');
  });

  it('refuses anything but a PostgreSQL URL without repeating it', () => {
    for (const value of ['mysql://root:hunter2@db/app', 'hunter2', '']) {
      let caught: unknown;
      try {
        describeDatabaseUrl(value);
      } catch (error) {
        caught = error;
      }
      expect(ConfigError.isInstance(caught)).toBe(true);
      expect((caught as ConfigError).variable).toBe('POLYMODAL_DATABASE_URL');
      if (value) expect((caught as Error).message).not.toContain('hunter2');
    }
  });
});

describe('toLedgerError', () => {
  const context = { location: 'postgres://app:***@db:5432/jobs', secrets: ['hunter2'] };

  it('names an unreachable database and redacts secrets a driver message might echo', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432 (hunter2)'), {
      code: 'ECONNREFUSED',
    });
    const error = toLedgerError(refused, context);
    expect(LedgerError.isInstance(error)).toBe(true);
    expect(error.location).toBe(context.location);
    expect(error.message).toMatch(/^Could not reach PostgreSQL at postgres:\/\/app:\*\*\*@db:5432\/jobs/);
    expect(error.message).not.toContain('hunter2');
    // Node reports a host with several addresses as an AggregateError without a message.
    const aggregate = Object.assign(new AggregateError([refused], ''), { code: 'ECONNREFUSED' });
    expect(toLedgerError(aggregate, context).message).toContain('Could not reach PostgreSQL');
  });

  it('tells a refused login and a missing database apart from other failures', () => {
    const login = Object.assign(new Error('password authentication failed for user "app"'), {
      code: '28P01',
    });
    expect(toLedgerError(login, context).message).toContain('refused the login');
    const missing = Object.assign(new Error('database "jobs" does not exist'), { code: '3D000' });
    expect(toLedgerError(missing, context).message).toContain('has no such database');
    const other = Object.assign(new Error('deadlock detected'), { code: '40P01' });
    expect(toLedgerError(other, context).message).toContain(
      'failed a job ledger query (deadlock detected, code 40P01)',
    );
  });

  it('redacts the longest secret first', () => {
    expect(redactSecrets('postgres://a:pw@h/db and pw', ['pw', 'postgres://a:pw@h/db'])).toBe('*** and ***');
  });
});
