import { describe, expect, it } from 'vitest';
import {
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  createApiError,
  InsufficientCreditsError,
  InternalServerError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  ServiceUnavailableError,
} from './api-error.js';
import { ConnectionError } from './polymodal-error.js';

const error = (status: number) => createApiError({ status, method: 'GET', url: '/jobs/1', body: undefined });

const GUARDS = [
  [400, BadRequestError],
  [401, AuthenticationError],
  [402, InsufficientCreditsError],
  [403, PermissionDeniedError],
  [404, NotFoundError],
  [409, ConflictError],
  [413, PayloadTooLargeError],
  [429, RateLimitError],
  [500, InternalServerError],
  [503, ServiceUnavailableError],
] as const;

const STATUSES = [400, 401, 402, 403, 404, 409, 413, 418, 429, 500, 502, 503, 504];

describe('status-true error guards', () => {
  it.each(GUARDS)('%i: the guard accepts its own status and no other', (status, ErrorClass) => {
    expect(ErrorClass.isInstance(error(status))).toBe(true);
    for (const other of STATUSES.filter((candidate) => candidate !== status)) {
      // InternalServerError stands for every 5xx without a class of its own.
      const expected = ErrorClass === InternalServerError && other >= 500 && other !== 503;
      expect({ other, accepted: ErrorClass.isInstance(error(other)) }).toEqual({ other, accepted: expected });
    }
  });

  it('a 503 is not "gone": NotFoundError refuses it (the bug that paid for a recording twice)', () => {
    const unavailable = error(503);
    expect(NotFoundError.isInstance(unavailable)).toBe(false);
    expect(ServiceUnavailableError.isInstance(unavailable)).toBe(true);
    expect(ApiError.isInstance(unavailable)).toBe(true);
  });

  it('construction and guards agree for every status', () => {
    for (const status of STATUSES) {
      const built = error(status);
      const guards = GUARDS.filter(([, ErrorClass]) => ErrorClass.isInstance(built));
      expect(guards.length).toBe(status === 418 ? 0 : 1);
      for (const [, ErrorClass] of guards) expect(built).toBeInstanceOf(ErrorClass);
    }
  });

  it('guards refuse what is not an API error', () => {
    const transport = new ConnectionError('reset', { requestMayHaveArrived: true });
    for (const [, ErrorClass] of GUARDS) {
      expect(ErrorClass.isInstance(transport)).toBe(false);
      expect(ErrorClass.isInstance({ status: 404, method: 'GET' })).toBe(false);
      expect(ErrorClass.isInstance(undefined)).toBe(false);
    }
  });
});
