/**
 * The shared LLM service (`/api/llm/v1`), OpenAI-compatible, serving the deterministic
 * `sandbox-planner-1` (see planner-model.ts). Where the spec says "not shown" the sandbox chooses:
 * an invalid body → 400 `{error}`, an unknown model → 404 `{error}`, `stream: true` → 400 (streaming is not
 * documented), `tools` accepted (native tool calls), other extra fields ignored as a router would.
 */
import { z } from 'zod';
import type { KeyScheme } from '../../framework/authenticator.js';
import { HttpError } from '../../framework/http-error.js';
import type { RequestContext } from '../../framework/request-context.js';
import type { Router } from '../../framework/router.js';
import { json } from '../../framework/sandbox-response.js';
import type { SandboxService, ServiceContext } from '../../framework/sandbox-service.js';
import { PLANNER_MODEL_ID, plainReply, planTurn, toolsFromPrompt } from './planner-model.js';

export const LLM_BASE_PATH = '/api/llm/v1';
const KEY_SCHEMES: readonly KeyScheme[] = ['x-api-key'];

const Message = z.looseObject({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string().nullable().optional(),
  tool_calls: z
    .array(
      z.looseObject({
        id: z.string().optional(),
        function: z.looseObject({ name: z.string(), arguments: z.string() }),
      }),
    )
    .optional(),
  tool_call_id: z.string().optional(),
});

const ChatRequest = z.looseObject({
  model: z.string().min(1),
  messages: z.array(Message).min(1),
  temperature: z.number().min(0).max(2).optional(),
  max_tokens: z.number().int().positive().optional(),
  stream: z.boolean().optional(),
  tools: z
    .array(
      z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string().min(1) }) }),
    )
    .optional(),
});

/** Rough token count for `usage`: the sandbox has no tokenizer. */
const tokens = (text: string) => Math.ceil(text.length / 4);

export function createLlmService(context: ServiceContext): SandboxService {
  let sequence = 0;

  function listModels(request: RequestContext) {
    request.authenticate(KEY_SCHEMES);
    return json(200, {
      object: 'list',
      data: [{ id: PLANNER_MODEL_ID, object: 'model', owned_by: 'polymodal-sandbox' }],
    });
  }

  async function chat(request: RequestContext) {
    const { user } = request.authenticate(KEY_SCHEMES);
    const parsed = ChatRequest.safeParse(await request.readJson());
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new HttpError(
        400,
        `invalid chat request: ${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`,
      );
    }
    const body = parsed.data;
    if (body.model !== PLANNER_MODEL_ID) {
      throw new HttpError(404, `model ${body.model} not found; GET ${LLM_BASE_PATH}/models lists the models`);
    }
    if (body.stream) throw new HttpError(400, 'streaming responses are not supported; omit "stream"');
    context.counters.increment('llmCompletions', user.id);

    const nativeTools = body.tools?.map((tool) => tool.function.name) ?? [];
    const system = body.messages.find((message) => message.role === 'system')?.content ?? '';
    const promptTools = nativeTools.length === 0 && system.includes('{"tool"') ? toolsFromPrompt(system) : [];
    const messages = body.messages.map((message) => ({
      role: message.role,
      content: message.content ?? null,
      ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}),
      ...(message.tool_call_id ? { tool_call_id: message.tool_call_id } : {}),
    }));
    sequence += 1;
    const id = `chatcmpl-sbx-${sequence}`;

    let message: Record<string, unknown>;
    let finishReason = 'stop';
    if (nativeTools.length > 0 || promptTools.length > 0) {
      const turn = planTurn(messages, nativeTools.length > 0 ? nativeTools : promptTools);
      if (turn.kind === 'tool_call' && nativeTools.length > 0) {
        finishReason = 'tool_calls';
        message = {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: `call_${sequence}`,
              type: 'function',
              function: { name: turn.name, arguments: JSON.stringify(turn.arguments) },
            },
          ],
        };
      } else if (turn.kind === 'tool_call') {
        message = {
          role: 'assistant',
          content: JSON.stringify({ tool: turn.name, arguments: turn.arguments }),
        };
      } else {
        message = {
          role: 'assistant',
          content: promptTools.length > 0 ? JSON.stringify({ answer: turn.text }) : turn.text,
        };
      }
    } else {
      let text = plainReply(messages);
      if (body.max_tokens && tokens(text) > body.max_tokens) {
        text = text.slice(0, body.max_tokens * 4);
        finishReason = 'length';
      }
      message = { role: 'assistant', content: text };
    }
    const promptTokens = tokens(JSON.stringify(body.messages));
    const completionTokens = tokens(JSON.stringify(message));
    return json(200, {
      id,
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

  return {
    name: 'llm',
    register(router: Router) {
      router.route('GET', `${LLM_BASE_PATH}/models`, listModels);
      router.route('POST', `${LLM_BASE_PATH}/chat/completions`, chat);
    },
    settle() {},
    async reset() {
      sequence = 0;
    },
    async close() {},
  };
}
