/**
 * Client of the shared LLM service: model discovery and OpenAI-compatible chat completions, a thin layer
 * over the chokepoint with `x-api-key`. A completion creates no job, but it is not idempotent either (a
 * repeat costs a second generation), so it is repeated only when the request provably never arrived or
 * after an explicit 429.
 *
 * Every call takes a `deadline` (epoch ms) and never outlives it: a model that answers after it is not
 * waited for, and a completion that may have reached the pool is not sent again to "try once more". The
 * spec does not show the error body of these routes; an OpenAI-style `{error: {message, type, code}}` is
 * read as well as the platform's `{error: string}`, so that an unknown model is reported in the platform's
 * words.
 */
import { redactSecrets } from '../config/redact-secrets.js';
import { LLM_API_PATH } from '../constants/service-table.js';
import {
  ChatCompletionRequest,
  ChatCompletionResponse,
  LlmErrorBody,
  LlmModelList,
} from '../contracts/llm.js';
import { ApiError, createApiError } from '../errors/api-error.js';
import { TimeoutError, ValidationError } from '../errors/polymodal-error.js';
import { type CallOptions, callDeadline } from '../http/call-options.js';
import type { HttpClient } from '../http/http-client.js';

/** The per-call options (`signal`, `timeout`, `maxRetries`), with the LLM client's finer controls. */
export interface LlmCallOptions extends CallOptions {
  /**
   * When the call must be over (epoch ms). The request is cut there (a `TimeoutError` with
   * `deadlineReached`), and no retry starts whose pause would end past it.
   */
  deadline?: number | undefined;
  /** Per attempt; default 120 s for a completion, the HTTP client's (60 s) for the model list. */
  timeoutMs?: number | undefined;
}

/** What the platform said about a failed LLM call, from either error body shape. */
export interface LlmErrorDetail {
  message: string | undefined;
  /** OpenAI-style `error.type`, e.g. `invalid_request_error`. */
  type: string | undefined;
  /** OpenAI-style `error.code`, e.g. `model_not_found`. */
  code: string | undefined;
}

export interface LlmClient {
  /** `GET /models`. */
  models(options?: LlmCallOptions): Promise<LlmModelList>;
  /** `POST /chat/completions`; the request is validated before anything is sent. */
  chat(request: ChatCompletionRequest, options?: LlmCallOptions): Promise<ChatCompletionResponse>;
  /** Convenience: one user prompt (and an optional system prompt) → the generated text. */
  complete(
    prompt: string,
    options: LlmCallOptions & { model: string; system?: string; temperature?: number; maxTokens?: number },
  ): Promise<string>;
}

/** Generations can take a while on a busy pool; longer than the chokepoint's default per attempt. */
const CHAT_TIMEOUT_MS = 120_000;

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

export function createLlmClient(options: {
  http: HttpClient;
  /** Masked in every message taken from an error body (the chokepoint masks the `{error: string}` one). */
  apiKey?: string;
  /**
   * Where the OpenAI-compatible routes (`/models`, `/chat/completions`) live below the HTTP client's base
   * URL: the platform's `/api/llm/v1` by default, `''` for an endpoint whose base URL already ends there
   * (e.g. `https://api.example.com/v1`), so another OpenAI-compatible model can go through this client too.
   */
  apiPath?: string;
}): LlmClient {
  const { http } = options;
  const apiPath = (options.apiPath ?? LLM_API_PATH).replace(/\/+$/, '');
  const secrets = options.apiKey ? [options.apiKey] : [];

  /**
   * The chokepoint keeps only a string `error` as the server's message; an OpenAI-style body is read here
   * and the error rebuilt with it (same status, same class), so every layer above sees what the
   * platform said.
   */
  const withPlatformMessage = (error: unknown): unknown => {
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
  };

  async function chat(
    request: ChatCompletionRequest,
    call: LlmCallOptions = {},
  ): Promise<ChatCompletionResponse> {
    const parsed = ChatCompletionRequest.safeParse(request);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => ({
        path: issue.path.join('.'),
        message: issue.message,
      }));
      throw new ValidationError(
        `Invalid chat request: ${issues.map((issue) => `${issue.path || '(root)'}: ${issue.message}`).join('; ')}. Nothing was sent.`,
        issues,
      );
    }
    const startedAt = Date.now();
    try {
      const response = await http.request({
        method: 'POST',
        path: `${apiPath}/chat/completions`,
        json: parsed.data,
        schema: ChatCompletionResponse,
        idempotent: false,
        timeoutMs: call.timeoutMs ?? CHAT_TIMEOUT_MS,
        deadline: callDeadline(call),
        maxRetries: call.maxRetries,
        ...(call.signal ? { signal: call.signal } : {}),
      });
      return response.data;
    } catch (error) {
      // A deadline that had passed before the request went out (the chokepoint then reports 0 ms) cost
      // nothing; one that cut an attempt left a request on the pool.
      if (TimeoutError.isInstance(error) && error.deadlineReached && error.timeoutMs > 0) {
        const waited = Math.max(0, Math.round((Date.now() - startedAt) / 1000));
        throw new TimeoutError(
          `Model ${parsed.data.model} did not answer within ${waited} s, when the call's deadline came. The ` +
            'request had been sent, so it was not repeated: a repeat would ask for a second generation. Ask ' +
            'again with a shorter prompt or a lower max_tokens, or pick another model.',
          error.timeoutMs,
          { deadlineReached: true },
        );
      }
      throw withPlatformMessage(error);
    }
  }

  return {
    async models(call = {}) {
      try {
        const response = await http.request({
          method: 'GET',
          path: `${apiPath}/models`,
          schema: LlmModelList,
          idempotent: true,
          deadline: callDeadline(call),
          maxRetries: call.maxRetries,
          ...(call.signal ? { signal: call.signal } : {}),
          ...(call.timeoutMs ? { timeoutMs: call.timeoutMs } : {}),
        });
        return response.data;
      } catch (error) {
        throw withPlatformMessage(error);
      }
    },
    chat,
    async complete(prompt, call) {
      const messages: ChatCompletionRequest['messages'] = [];
      if (call.system) messages.push({ role: 'system', content: call.system });
      messages.push({ role: 'user', content: prompt });
      const response = await chat(
        {
          model: call.model,
          messages,
          ...(call.temperature === undefined ? {} : { temperature: call.temperature }),
          ...(call.maxTokens === undefined ? {} : { max_tokens: call.maxTokens }),
        },
        call,
      );
      return response.choices[0]?.message.content ?? '';
    },
  };
}
