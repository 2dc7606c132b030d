/**
 * Runs the built demo CLI as a newcomer does, with stdout and stderr piped: its JSON lines can be read one
 * by one as they arrive, and the test may act on one while the run goes on.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

export const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

export type DemoEvent = { type: string; seq: number; at: string } & Record<string, unknown>;

export interface DemoRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function assertBuilt(): void {
  if (!existsSync(cli))
    throw new Error('Build the demo first: pnpm turbo run build --filter=@polymodal/agent-demo...');
}

export function runDemo(
  args: string[],
  env: Record<string, string>,
  /** Called with each complete stdout line the moment it arrives, while the demo still runs. */
  onLine?: (line: string) => void,
): Promise<DemoRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.tmpdir(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let pending = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
      pending += chunk;
      let end = pending.indexOf('\n');
      while (end >= 0) {
        onLine?.(pending.slice(0, end));
        pending = pending.slice(end + 1);
        end = pending.indexOf('\n');
      }
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Every stdout line parsed: --json prints nothing but one JSON object per line. */
export function parseEvents(stdout: string): DemoEvent[] {
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as DemoEvent);
}

/** Each part of the final answer whose heading names what it is, and the tools whose results it comes from. */
const ANSWER_PARTS: readonly { heading: string; tools: readonly string[] }[] = [
  {
    heading: 'Action items:',
    tools: [
      'summarize_meeting',
      'get_meeting',
      'retry_meeting',
      'resummarize_meeting',
      'retranslate_meeting',
    ],
  },
  { heading: 'What the student should practise:', tools: ['score_reading', 'get_reading_score'] },
  { heading: 'What the Thai speech says:', tools: ['transcribe_thai'] },
  { heading: 'First flashcards:', tools: ['create_flashcards', 'get_flashcards'] },
];

/**
 * The headings of the answer against the tools called: a part is there exactly when a tool it comes from
 * answered without an error (a transcript is never shown as flashcards, a score never goes unlabelled).
 */
export function answerHeadingsOf(events: readonly DemoEvent[]): { heading: string; present: boolean }[] {
  const answer = String(events.find((event) => event.type === 'answer')?.text ?? '');
  return ANSWER_PARTS.map(({ heading }) => ({ heading, present: answer.includes(`\n${heading}\n`) }));
}

export function expectedHeadingsOf(events: readonly DemoEvent[]): { heading: string; present: boolean }[] {
  const answered = new Set(
    events.filter((event) => event.type === 'result' && event.ok === true).map((event) => String(event.tool)),
  );
  return ANSWER_PARTS.map(({ heading, tools }) => ({
    heading,
    present: tools.some((tool) => answered.has(tool)),
  }));
}
