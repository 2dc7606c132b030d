/**
 * The package's entry points as a user's Node resolves them from the built package (its `exports`): the
 * root's names, pinned in root-exports.txt, so that a name added to or removed from what users call is a
 * visible decision; each documented subpath; and a refusal for anything else (internals are not exported).
 * Run in a child Node from the package directory, where the package resolves itself by name.
 */
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const PACKAGE_DIR = path.join(import.meta.dirname, '..');

/** What `import(specifier)` gives a user: the sorted export names, or the error code. */
function load(specifier: string): { names?: string[]; code?: string } {
  const script = `try { const m = await import(${JSON.stringify(specifier)}); console.log(JSON.stringify({ names: Object.keys(m).sort() })); } catch (error) { console.log(JSON.stringify({ code: error.code })); }`;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: PACKAGE_DIR,
    encoding: 'utf8',
  });
  return JSON.parse(output);
}

/** The source files a built entry loads, through every chunk it imports (esbuild names them in comments). */
async function builtSources(entry: string): Promise<string[]> {
  const dist = path.join(PACKAGE_DIR, 'dist');
  const sources: string[] = [];
  const seen = new Set<string>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const code = await readFile(path.join(dist, file), 'utf8');
    for (const match of code.matchAll(/(?:from|import) "\.\/([^"]+)"/g)) pending.push(match[1] as string);
    for (const match of code.matchAll(/^\/\/ (src\/\S+\.ts)$/gm)) sources.push(match[1] as string);
  }
  return sources;
}

describe('entry points of @polymodal/core', () => {
  it('the root exports exactly the pinned names: the client, file access, configuration and errors', async () => {
    const pinned = (await readFile(path.join(import.meta.dirname, 'root-exports.txt'), 'utf8'))
      .trim()
      .split('\n');
    expect(load('@polymodal/core').names).toEqual(pinned);
  });

  it.each([
    ['contracts', ['MeetingJob', 'CreateMeetingJobRequest', 'isNoSpeechResult']],
    ['llm', ['createLlmClient', 'readLlmError']],
    ['jobs', ['createJobEngine', 'NOT_CREATED']],
    ['ledger', ['createJobLedger', 'fingerprint', 'parseUpdatedSince']],
    ['files', ['createFileAccess', 'openVerifiedFile', 'OUTPUT_DIR_VARIABLE']],
    ['audio', ['parseWav', 'encodeWav', 'decodeWavToPcm16']],
    ['net', ['classifyAddress', 'isPrivateAddress', 'isPrivateHostname']],
    ['download', ['createRemoteInputs', 'DEFAULT_DOWNLOAD_LIMITS']],
    ['http', ['createHttpClient']],
    ['media', ['sniffImageType', 'inspectRecording', 'readMediaAsDataUrl']],
    ['streaming', ['createStreamingSession']],
    ['views', ['meetingJobView', 'videoJobView', 'speechTextView']],
    ['client', ['createPolymodal']],
    ['constants', ['MEETING_LANGUAGES', 'MEETING_SERVICE', 'TTS_MODELS', 'meetingCost', 'jobErrorText']],
    ['errors', ['ApiError', 'ConfigError', 'ValidationError', 'LedgerError', 'SubmissionInProgressError']],
    ['config', ['resolveConfig', 'API_KEY_VARIABLE', 'redactSecrets', 'defaultStateDir']],
  ])('@polymodal/core/%s resolves and exports what it documents', (subpath, expected) => {
    const names = load(`@polymodal/core/${subpath}`).names ?? [];
    for (const name of expected) expect(names).toContain(name);
  });

  it.each([
    ['constants', 'src/constants/service-table.ts'],
    ['views', 'src/views/job-view.ts'],
  ])('%s builds no schema and loads no client (the servers read it at start)', async (entry, own) => {
    const loaded = await builtSources(`${entry}.js`);
    expect(loaded).toContain(own);
    expect(loaded.filter((source) => source.startsWith('src/contracts/'))).toEqual([]);
    expect(loaded.filter((source) => source.includes('-client.ts') || source.includes('/http/'))).toEqual([]);
  });

  it('refuses internals: a helper directory, a built file, a source file', () => {
    for (const specifier of [
      '@polymodal/core/util',
      '@polymodal/core/dist/index.js',
      '@polymodal/core/src/index.ts',
    ]) {
      expect(load(specifier)).toEqual({ code: 'ERR_PACKAGE_PATH_NOT_EXPORTED' });
    }
  });
});
