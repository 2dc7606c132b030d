import { describe, expect, it } from 'vitest';
import { redactSecrets } from './redact-secrets.js';

describe('redactSecrets', () => {
  it('masks every occurrence of every secret', () => {
    expect(redactSecrets('key pk_1 and again pk_1, other sk_2', ['pk_1', 'sk_2'])).toBe(
      'key *** and again ***, other ***',
    );
  });

  it('masks a longer secret whole even when it contains a shorter one', () => {
    expect(redactSecrets('token abc123xyz', ['abc', 'abc123xyz'])).toBe('token ***');
  });

  it('masks api_key query values it was not told about', () => {
    expect(redactSecrets('wss://h/ws?lang=th&api_key=unknown_SECRET&x=1 failed', [])).toBe(
      'wss://h/ws?lang=th&api_key=***&x=1 failed',
    );
  });

  it('ignores empty secrets', () => {
    expect(redactSecrets('nothing to hide', [''])).toBe('nothing to hide');
  });
});
