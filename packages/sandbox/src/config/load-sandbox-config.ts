/** Reads and validates a JSON configuration file for the sandbox. */
import { readFile } from 'node:fs/promises';
import { type ParsedSandboxConfig, parseSandboxConfig, SandboxConfigError } from './sandbox-config.js';

export async function loadSandboxConfig(file: string): Promise<ParsedSandboxConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'read error';
    throw new SandboxConfigError(file, [{ path: '', message: `cannot read the file (${code})` }]);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new SandboxConfigError(file, [
      { path: '', message: `not valid JSON: ${(error as Error).message}` },
    ]);
  }
  return parseSandboxConfig(value, file);
}
