/**
 * Client of the shared LLM service: model discovery and OpenAI-compatible chat completions, a thin layer
 * over the chokepoint with `x-api-key`. A completion creates no job, but it is not idempotent either (a
 * repeat costs a second generation), so it is repeated only when the request provably never arrived or
 * after an explicit 429.
 *
 * Every call takes a `deadline` (epoch ms) and never outlives it: a model that answers after it is not
 * waited for, and a completion that may have reached the pool is not sent again to "try once more". Errors
 * carry the platform's own words (see `llm-error.ts`).
 */
import { LLM_API_PATH } from '../constants/service-table.js';
import { ChatCompletionRequest, ChatCompletionResponse, LlmModelList } from '../contracts/llm.js';
import { TimeoutError, ValidationError } from '../errors/polymodal-error.js';
import { type CallOptions, callDeadline } from '../http/call-options.js';
import type { HttpClient } from '../http/http-client.js';
import { withPlatformMessage } from './llm-error.js';

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

/** `complete`'s options: the model, an optional system prompt and sampling settings. */
export type CompleteOptions = LlmCallOptions & {
  model: string;
  system?: string;
  temperature?: number;
  maxTokens?: number;
};

export interface LlmClient {
  /** `GET /models`. */
  models(options?: LlmCallOptions): Promise<LlmModelList>;
  /** `POST /chat/completions`; the request is validated before anything is sent. */
  chat(request: ChatCompletionRequest, options?: LlmCallOptions): Promise<ChatCompletionResponse>;
  /** Convenience: one user prompt (and an optional system prompt) → the generated text. */
  complete(prompt: string, options: CompleteOptions): Promise<string>;
}

/** Generations can take a while on a busy pool; longer than the chokepoint's default per attempt. */
const CHAT_TIMEOUT_MS = 120_000;

export interface LlmClientOptions {
  http: HttpClient;
  /** Masked in every message taken from an error body (the chokepoint masks the `{error: string}` one). */
  apiKey?: string;
  /**
   * Where the OpenAI-compatible routes (`/models`, `/chat/completions`) live below the HTTP client's base
   * URL: the platform's `/api/llm/v1` by default, `''` for an endpoint whose base URL already ends there
   * (e.g. `https://api.example.com/v1`), so another OpenAI-compatible model can go through this client too.
   */
  apiPath?: string;
}

/** What every LLM call needs: the chokepoint, where the routes live, and the secrets to mask. */
interface LlmDeps {
  http: HttpClient;
  apiPath: string;
  secrets: string[];
}

export function createLlmClient(options: LlmClientOptions): LlmClient {
  const deps: LlmDeps = {
    http: options.http,
    apiPath: (options.apiPath ?? LLM_API_PATH).replace(/\/+$/, ''),
    secrets: options.apiKey ? [options.apiKey] : [],
  };
  return {
    models: (call) => listModels(deps, call),
    chat: (request, call) => chat(deps, request, call),
    complete: (prompt, call) => complete(deps, prompt, call),
  };
}

async function listModels(deps: LlmDeps, call: LlmCallOptions = {}): Promise<LlmModelList> {
  try {
    const response = await deps.http.request({
      method: 'GET',
      path: `${deps.apiPath}/models`,
      schema: LlmModelList,
      idempotent: true,
      deadline: callDeadline(call),
      maxRetries: call.maxRetries,
      ...(call.signal ? { signal: call.signal } : {}),
      ...(call.timeoutMs ? { timeoutMs: call.timeoutMs } : {}),
    });
    return response.data;
  } catch (error) {
    throw withPlatformMessage(error, deps.secrets);
  }
}

async function chat(
  deps: LlmDeps,
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
    const response = await deps.http.request({
      method: 'POST',
      path: `${deps.apiPath}/chat/completions`,
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
    throw withPlatformMessage(error, deps.secrets);
  }
}

async function complete(deps: LlmDeps, prompt: string, call: CompleteOptions): Promise<string> {
  const messages: ChatCompletionRequest['messages'] = [];
  if (call.system) messages.push({ role: 'system', content: call.system });
  messages.push({ role: 'user', content: prompt });
  const response = await chat(
    deps,
    {
      model: call.model,
      messages,
      ...(call.temperature === undefined ? {} : { temperature: call.temperature }),
      ...(call.maxTokens === undefined ? {} : { max_tokens: call.maxTokens }),
    },
    call,
  );
  return response.choices[0]?.message.content ?? '';
}
