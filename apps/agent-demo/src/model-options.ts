/**
 * Which model the agent reasons with: the platform's shared LLM by default (on the embedded sandbox that
 * is its deterministic planner), or any OpenAI-compatible `/chat/completions` endpoint given with
 * --llm-base-url / --llm-model / --llm-api-key or their POLYMODAL_DEMO_LLM_* variables (a flag wins).
 *
 * OPENAI_BASE_URL and OPENAI_API_KEY are deliberately not read: many shells export them for other tools,
 * and picking them up would silently move the demo off the platform's LLM (and bill that account), or send
 * an OpenAI key to whatever base URL the demo was given. Set POLYMODAL_DEMO_LLM_API_KEY=$OPENAI_API_KEY
 * to mean it.
 *
 * The key goes out only to the endpoint, over https, or plain http to a loopback address (a local model
 * server): plain http elsewhere would carry the key and the conversation unencrypted, so it is refused.
 * Messages never show the key.
 */
import { classifyAddress } from '@polymodal/core/net';

export const LLM_BASE_URL_VARIABLE = 'POLYMODAL_DEMO_LLM_BASE_URL';
export const LLM_MODEL_VARIABLE = 'POLYMODAL_DEMO_LLM_MODEL';
export const LLM_API_KEY_VARIABLE = 'POLYMODAL_DEMO_LLM_API_KEY';
/** The model of the platform's shared LLM, read before the demo had its own variables. */
export const PLATFORM_MODEL_VARIABLE = 'POLYMODAL_LLM_MODEL';

export type ModelChoice =
  /** The platform's shared LLM; `model` must be one it lists (default: the first). */
  | { kind: 'platform'; model: string | undefined }
  | { kind: 'endpoint'; baseUrl: string; apiKey: string; model: string };

export interface ModelFlags {
  'llm-base-url'?: string | undefined;
  'llm-model'?: string | undefined;
  'llm-api-key'?: string | undefined;
}

export function resolveModelChoice(flags: ModelFlags, env: NodeJS.ProcessEnv): ModelChoice {
  const pick = (flag: string | undefined, variable: string) => {
    const value = flag ?? env[variable];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  const baseUrl = pick(flags['llm-base-url'], LLM_BASE_URL_VARIABLE);
  const model = pick(flags['llm-model'], LLM_MODEL_VARIABLE);
  const apiKey = pick(flags['llm-api-key'], LLM_API_KEY_VARIABLE);

  if (!baseUrl) {
    if (apiKey) {
      throw new Error(
        `--llm-api-key (${LLM_API_KEY_VARIABLE}) is the key of the endpoint given with --llm-base-url ` +
          `(${LLM_BASE_URL_VARIABLE}); the platform's shared LLM uses POLYMODAL_API_KEY. Give the base URL ` +
          'too, or drop the key.',
      );
    }
    return { kind: 'platform', model: model ?? pick(undefined, PLATFORM_MODEL_VARIABLE) };
  }
  const endpoint = checkEndpointUrl(baseUrl);
  if (!model) {
    throw new Error(
      `--llm-base-url needs --llm-model (or ${LLM_MODEL_VARIABLE}): the id of the model the endpoint ` +
        'serves, e.g. gpt-4o-mini or llama3.1:8b.',
    );
  }
  if (!apiKey) {
    throw new Error(
      `--llm-base-url needs a key: set ${LLM_API_KEY_VARIABLE} (or --llm-api-key, which other users of ` +
        'this machine can see in the process list). For a local server that takes no key, any placeholder ' +
        `works, e.g. ${LLM_API_KEY_VARIABLE}=none.`,
    );
  }
  // The key goes into an Authorization header: a line break would split it (usually a copy-paste accident).
  if (!/^[\x21-\x7e]+$/.test(apiKey)) {
    throw new Error(
      `The endpoint key (${LLM_API_KEY_VARIABLE} / --llm-api-key) contains spaces, line breaks or ` +
        'non-ASCII characters; set it to the key exactly as issued.',
    );
  }
  return { kind: 'endpoint', baseUrl: endpoint, apiKey, model };
}

/** Whether a URL host is this machine: `localhost` or a loopback address (127.0.0.0/8, ::1, mapped). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost') return true;
  const address = classifyAddress(host);
  return address?.range === 'loopback' || address?.embedded?.range === 'loopback';
}

/** The endpoint's base URL, normalised (no trailing slash), or an error saying what to change. */
export function checkEndpointUrl(raw: string): string {
  const example = 'e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`--llm-base-url (${LLM_BASE_URL_VARIABLE}) is not a valid URL; ${example}.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error(
      `--llm-base-url must start with https:// (or http:// for a loopback address); ${example}.`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new Error(
      `--llm-base-url must not contain credentials (user:password@); put the key in ${LLM_API_KEY_VARIABLE}.`,
    );
  }
  if (url.search !== '' || url.hash !== '' || raw.includes('?') || raw.includes('#')) {
    throw new Error(`--llm-base-url must not contain a query (?...) or fragment (#...); ${example}.`);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new Error(
      `Refusing plain http to ${url.hostname}: the key and the conversation would travel unencrypted. Use ` +
        'https://, or http:// only for a server on this machine (localhost, 127.0.0.1, [::1]).',
    );
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}
