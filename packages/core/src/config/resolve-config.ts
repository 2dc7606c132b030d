/**
 * Connection settings from options or the environment. Errors name the variable and how to fix it,
 * and never echo the key (nor the base URL, which could carry credentials).
 */
import { ConfigError } from '../errors/polymodal-error.js';

export const BASE_URL_VARIABLE = 'POLYMODAL_BASE_URL';
export const API_KEY_VARIABLE = 'POLYMODAL_API_KEY';

export interface ResolveConfigOptions {
  baseUrl?: string;
  apiKey?: string;
  env?: NodeJS.ProcessEnv;
}

export interface ResolvedConfig {
  /** http(s) origin plus optional path prefix, without a trailing slash. */
  baseUrl: string;
  apiKey: string;
}

/** Options win over `POLYMODAL_BASE_URL` / `POLYMODAL_API_KEY`. */
export function resolveConfig(options: ResolveConfigOptions = {}): ResolvedConfig {
  const env = options.env ?? process.env;
  return {
    baseUrl: normalizeBaseUrl(options.baseUrl ?? env[BASE_URL_VARIABLE]),
    apiKey: checkApiKey(options.apiKey ?? env[API_KEY_VARIABLE]),
  };
}

function normalizeBaseUrl(raw: string | undefined): string {
  const fix = `Set ${BASE_URL_VARIABLE} (or the baseUrl option) to the platform address, e.g. https://platform.example.com.`;
  if (raw === undefined || raw.trim() === '') {
    throw new ConfigError(BASE_URL_VARIABLE, `${BASE_URL_VARIABLE} is not set. ${fix}`);
  }
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ConfigError(BASE_URL_VARIABLE, `${BASE_URL_VARIABLE} is not a valid URL. ${fix}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(
      BASE_URL_VARIABLE,
      `${BASE_URL_VARIABLE} must start with http:// or https://. ${fix}`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new ConfigError(
      BASE_URL_VARIABLE,
      `${BASE_URL_VARIABLE} must not contain credentials (user:password@); put the key in ${API_KEY_VARIABLE} instead.`,
    );
  }
  if (url.search !== '' || url.hash !== '' || raw.includes('?') || raw.includes('#')) {
    throw new ConfigError(
      BASE_URL_VARIABLE,
      `${BASE_URL_VARIABLE} must not contain a query (?...) or fragment (#...); give only the address. ${fix}`,
    );
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

function checkApiKey(raw: string | undefined): string {
  const where = `Create a key in the dashboard's API keys area and set ${API_KEY_VARIABLE} (or the apiKey option) to it.`;
  if (raw === undefined || raw === '') {
    throw new ConfigError(API_KEY_VARIABLE, `${API_KEY_VARIABLE} is not set. ${where}`);
  }
  // A key goes into an HTTP header: a CR/LF would split the header and spaces are never part of a key.
  // Usually this is a copy-paste accident (trailing newline), so say so without showing the value.
  if (!/^[\x21-\x7e]+$/.test(raw)) {
    throw new ConfigError(
      API_KEY_VARIABLE,
      `${API_KEY_VARIABLE} contains spaces, line breaks, control or non-ASCII characters (often a trailing ` +
        'newline from copy-paste). Set it to the key exactly as shown in the dashboard.',
    );
  }
  return raw;
}
