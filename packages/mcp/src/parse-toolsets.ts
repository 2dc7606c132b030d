/**
 * The toolsets of the combined server and how a user names them (`--toolsets meeting,media` or
 * POLYMODAL_TOOLSETS): a typo fails at startup instead of silently serving fewer tools.
 */
export const TOOLSET_NAMES = ['meeting', 'media', 'speech'] as const;

export type ToolsetName = (typeof TOOLSET_NAMES)[number];

export const TOOLSETS_VARIABLE = 'POLYMODAL_TOOLSETS';

/** Comma-separated names (`all` or empty for every toolset); throws with the valid names on an unknown one. */
export function parseToolsets(value: string | undefined): ToolsetName[] {
  const names = (value ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  if (names.length === 0 || names.includes('all')) return [...TOOLSET_NAMES];
  const unknown = names.filter((name) => !(TOOLSET_NAMES as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new Error(
      `unknown toolset ${unknown.join(', ')}: choose from ${TOOLSET_NAMES.join(', ')} (comma separated)`,
    );
  }
  return TOOLSET_NAMES.filter((name) => names.includes(name));
}
