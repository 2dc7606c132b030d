/**
 * The LLM routes' errors in the platform's own words. The spec does not show their error body; an
 * OpenAI-style `{error: {message, type, code}}` is read as well as the platform's `{error: string}`, so that
 * an unknown model is reported as the platform put it.
 */
import { redactSecrets } from '../config/redact-secrets.js';
import { LlmErrorBody } from '../contracts/llm.js';
import { ApiError, createApiError } from '../errors/api-error.js';

/** What the platform said about a failed LLM call, from either error body shape. */
export interface LlmErrorDetail {
  message: string | undefined;
  /** OpenAI-style `error.type`, e.g. `invalid_request_error`. */
  type: string | undefined;
  /** OpenAI-style `error.code`, e.g. `model_not_found`. */
  code: string | undefined;
}

/**
 * Reads the platform's own words from an `ApiError` of an LLM route: `{error: {message, type, code}}`
 * (OpenAI-style) or `{error: string}`. Undefined for anything else.
 */
export function readLlmError(error: unknown): LlmErrorDetail | undefined {
  if (!ApiError.isInstance(error)) return undefined;
  const body = LlmErrorBody.safeParse(error.body);
  if (!body.success) return undefined;
  const detail = body.data.error;
  if (typeof detail === 'string') return { message: detail, type: undefined, code: undefined };
  return {
    message: detail.message,
    type: detail.type ?? undefined,
    code: detail.code === null || detail.code === undefined ? undefined : String(detail.code),
  };
}

/**
 * The chokepoint keeps only a string `error` as the server's message; an OpenAI-style body is read here
 * and the error rebuilt with it (same status, same class), so every layer above sees what the platform
 * said. `secrets` are masked in it.
 */
export function withPlatformMessage(error: unknown, secrets: string[]): unknown {
  if (!ApiError.isInstance(error) || error.serverMessage !== undefined) return error;
  const detail = readLlmError(error);
  if (!detail?.message) return error;
  const code = detail.code && !detail.message.includes(detail.code) ? ` (${detail.code})` : '';
  return createApiError({
    status: error.status,
    method: error.method,
    url: error.url,
    body: error.body,
    serverMessage: redactSecrets(`${detail.message}${code}`, secrets),
    retryAfterMs: error.retryAfterMs,
    headers: error.headers,
  });
}
