/**
 * Which MCP protocol generations a server answers (`POLYMODAL_PROTOCOL`, `--protocol`). By default both:
 * 2026-07-28 (Claude Code, claude.ai and Claude Desktop connectors) and 2025-11-25 (VS Code, Cursor,
 * ChatGPT), from the same server factory. `2025-11-25` serves the old generation only, for a host with a
 * known bug on the new one: its `server/discover` then fails, and a client that negotiates falls back to
 * `initialize` (see docs/hosts.md). A value that names neither is refused at start.
 */
export type ProtocolGenerations = 'all' | '2025-11-25';

export const PROTOCOL_VARIABLE = 'POLYMODAL_PROTOCOL';

/** `all` (or empty, or `auto`) or `2025-11-25`; anything else throws, naming what is accepted. */
export function parseProtocolGenerations(value: string | undefined, name: string): ProtocolGenerations {
  const trimmed = value?.trim().toLowerCase() ?? '';
  if (trimmed === '' || trimmed === 'all' || trimmed === 'auto') return 'all';
  if (trimmed === '2025-11-25') return '2025-11-25';
  throw new Error(
    `${name} must be "all" (both protocol generations, the default) or "2025-11-25" (the older one only), got ${JSON.stringify(value?.trim())}`,
  );
}
