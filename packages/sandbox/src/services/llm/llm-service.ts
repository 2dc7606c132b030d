/**
 * The shared LLM service (`/api/llm/v1`), OpenAI-compatible, serving the deterministic
 * `sandbox-planner-1` (see planner-model.ts). Where the spec says "not shown" the sandbox chooses:
 * an invalid body → 400 `{error}`, an unknown model → 404 `{error}`, `stream: true` → 400 (streaming is not
 * documented), `tools` accepted (native tool calls), other extra fields ignored as a router would.
 */
import type { KeyScheme } from '../../framework/authenticator.js';
import { HttpError } from '../../framework/http-error.js';
import type { RequestContext } from '../../framework/request-context.js';
import type { Router } from '../../framework/router.js';
import { json, type SandboxResponse } from '../../framework/sandbox-response.js';
import type { SandboxService, ServiceContext } from '../../framework/sandbox-service.js';
import { complete, tokens } from './chat-completion.js';
import { parseChatRequest } from './chat-request.js';
import { PLANNER_MODEL_ID } from './planner-model.js';

export const LLM_BASE_PATH = '/api/llm/v1';
const KEY_SCHEMES: readonly KeyScheme[] = ['x-api-key'];

interface LlmState {
  context: ServiceContext;
  /** Completions answered since start or reset: numbers the completion and tool call ids. */
  sequence: number;
}

function listModels(request: RequestContext): SandboxResponse {
  request.authenticate(KEY_SCHEMES);
  return json(200, {
    object: 'list',
    data: [{ id: PLANNER_MODEL_ID, object: 'model', owned_by: 'polymodal-sandbox' }],
  });
}

async function chat(state: LlmState, request: RequestContext): Promise<SandboxResponse> {
  const { context } = state;
  const { user } = request.authenticate(KEY_SCHEMES);
  const body = parseChatRequest(await request.readJson());
  if (body.model !== PLANNER_MODEL_ID) {
    throw new HttpError(404, `model ${body.model} not found; GET ${LLM_BASE_PATH}/models lists the models`);
  }
  if (body.stream) throw new HttpError(400, 'streaming responses are not supported; omit "stream"');
  context.counters.increment('llmCompletions', user.id);
  state.sequence += 1;
  const { message, finishReason } = complete(body, state.sequence);
  const promptTokens = tokens(JSON.stringify(body.messages));
  const completionTokens = tokens(JSON.stringify(message));
  return json(200, {
    id: `chatcmpl-sbx-${state.sequence}`,
    object: 'chat.completion',
    created: Math.floor(context.clock.now() / 1000),
    model: PLANNER_MODEL_ID,
    choices: [{ index: 0, message, finish_reason: finishReason }],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    },
  });
}

export function createLlmService(context: ServiceContext): SandboxService {
  const state: LlmState = { context, sequence: 0 };
  return {
    name: 'llm',
    register(router: Router) {
      router.route('GET', `${LLM_BASE_PATH}/models`, listModels);
      router.route('POST', `${LLM_BASE_PATH}/chat/completions`, (request) => chat(state, request));
    },
    settle() {},
    async reset() {
      state.sequence = 0;
    },
    async close() {},
  };
}
