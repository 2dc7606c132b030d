/**
 * Where the demo's platform lives: the real one when POLYMODAL_BASE_URL is set, otherwise the embedded
 * sandbox started in this process (no key, no network).
 */
import { type Sandbox, startSandbox } from '@polymodal/sandbox';

export interface Platform {
  baseUrl: string;
  apiKey: string;
  embedded: boolean;
  close(): Promise<void>;
}

/** Time scale of the embedded sandbox: fast enough for a demo, slow enough to show progress. */
const EMBEDDED_SPEED = 25;

export async function openPlatform(env: NodeJS.ProcessEnv): Promise<Platform> {
  const baseUrl = env.POLYMODAL_BASE_URL?.trim();
  if (baseUrl) {
    const apiKey = env.POLYMODAL_API_KEY?.trim();
    if (!apiKey) {
      throw new Error('POLYMODAL_BASE_URL is set but POLYMODAL_API_KEY is not: set both, or neither for the sandbox.');
    }
    return { baseUrl, apiKey, embedded: false, close: async () => {} };
  }
  const sandbox: Sandbox = await startSandbox({ speed: EMBEDDED_SPEED });
  return { baseUrl: sandbox.url, apiKey: sandbox.apiKey, embedded: true, close: () => sandbox.close() };
}
