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

/**
 * Time scale of the embedded sandbox: fast enough for a demo, slow enough that the 5 s polls show the job
 * moving through its states. POLYMODAL_SANDBOX_SPEED overrides it (tests run faster).
 */
const EMBEDDED_SPEED = 4;

function embeddedSpeed(env: NodeJS.ProcessEnv): number {
  const value = Number(env.POLYMODAL_SANDBOX_SPEED);
  return Number.isFinite(value) && value > 0 ? value : EMBEDDED_SPEED;
}

export async function openPlatform(env: NodeJS.ProcessEnv): Promise<Platform> {
  const baseUrl = env.POLYMODAL_BASE_URL?.trim();
  if (baseUrl) {
    const apiKey = env.POLYMODAL_API_KEY?.trim();
    if (!apiKey) {
      throw new Error(
        'POLYMODAL_BASE_URL is set but POLYMODAL_API_KEY is not: set both, or neither for the sandbox.',
      );
    }
    return { baseUrl, apiKey, embedded: false, close: async () => {} };
  }
  const sandbox: Sandbox = await startSandbox({ speed: embeddedSpeed(env) });
  return { baseUrl: sandbox.url, apiKey: sandbox.apiKey, embedded: true, close: () => sandbox.close() };
}
