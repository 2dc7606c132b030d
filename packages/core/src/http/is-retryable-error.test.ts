import { describe, expect, it } from 'vitest';
import { createApiError } from '../errors/api-error.js';
import {
  ConnectionError,
  ResponseValidationError,
  TimeoutError,
  ValidationError,
} from '../errors/polymodal-error.js';
import { isRetryableError } from './is-retryable-error.js';

const api = (status: number) => createApiError({ status, method: 'POST', url: '/jobs', body: null });
const refused = new ConnectionError('refused', { requestMayHaveArrived: false, code: 'ECONNREFUSED' });
const reset = new ConnectionError('reset', { requestMayHaveArrived: true, code: 'ECONNRESET' });

describe('isRetryableError', () => {
  it('retries idempotent requests on transport trouble, timeouts, cut bodies, 429 and 5xx', () => {
    expect(isRetryableError(refused, true)).toBe(true);
    expect(isRetryableError(reset, true)).toBe(true);
    expect(isRetryableError(new TimeoutError('t', 10), true)).toBe(true);
    expect(
      isRetryableError(new ResponseValidationError('cut', { status: 200, url: '/', retryable: true }), true),
    ).toBe(true);
    expect(isRetryableError(api(429), true)).toBe(true);
    expect(isRetryableError(api(500), true)).toBe(true);
    expect(isRetryableError(api(503), true)).toBe(true);
  });

  it('never retries 501, 4xx, schema mismatches or local validation', () => {
    expect(isRetryableError(api(501), true)).toBe(false);
    for (const status of [400, 401, 402, 403, 404, 409, 413])
      expect(isRetryableError(api(status), true)).toBe(false);
    expect(isRetryableError(new ResponseValidationError('bad', { status: 200, url: '/' }), true)).toBe(false);
    expect(isRetryableError(new ValidationError('bad'), true)).toBe(false);
    expect(isRetryableError(new Error('other'), true)).toBe(false);
  });

  it('retries a non-idempotent request only when it never arrived or on an explicit 429', () => {
    expect(isRetryableError(refused, false)).toBe(true);
    expect(isRetryableError(api(429), false)).toBe(true);
    expect(isRetryableError(reset, false)).toBe(false);
    expect(isRetryableError(new TimeoutError('t', 10), false)).toBe(false);
    expect(isRetryableError(api(500), false)).toBe(false);
    expect(isRetryableError(api(503), false)).toBe(false);
    expect(
      isRetryableError(new ResponseValidationError('cut', { status: 201, url: '/', retryable: true }), false),
    ).toBe(false);
  });
});
