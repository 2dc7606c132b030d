/**
 * To whom a server offers its MCP Apps views and app-only tools (`POLYMODAL_VIEWS`), read by every server
 * it builds and checked once at start-up (`runServerMain`). See `server/sdk-server.ts` for what each means.
 */
/** `auto`: to clients that declare the extension; `on`: also where the capabilities are unknown; `off`. */
export type ViewsPolicy = 'auto' | 'on' | 'off';

export const VIEWS_VARIABLE = 'POLYMODAL_VIEWS';

/** `POLYMODAL_VIEWS` (auto, on or off); anything else is a configuration mistake said at start-up. */
export function readViewsPolicy(env: NodeJS.ProcessEnv): ViewsPolicy {
  const value = env[VIEWS_VARIABLE]?.trim().toLowerCase() || 'auto';
  if (value === 'auto' || value === 'on' || value === 'off') return value;
  throw new Error(`${VIEWS_VARIABLE} must be auto, on or off (got ${JSON.stringify(value)})`);
}
