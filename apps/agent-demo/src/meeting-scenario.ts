/**
 * The built-in meeting scenario: summarise the bundled sample recording through the meeting server,
 * keep waiting with get_meeting if the job outlives one call, then export the summary and transcript.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callTool, type ToolOutcome } from './call-tool.js';
import type { Reporter } from './reporter.js';

export interface MeetingScenarioResult {
  ok: boolean;
  jobId?: string;
  answer: string;
  files: string[];
}

/** How many get_meeting waits the demo allows before it gives up and prints the job handle. */
const MAX_WAIT_CALLS = 10;

export async function runMeetingScenario(options: {
  client: Client;
  recordingPath: string;
  reporter: Reporter;
  signal?: AbortSignal;
}): Promise<MeetingScenarioResult> {
  const { client, reporter, signal } = options;
  const call = (tool: string, args: Record<string, unknown>): Promise<ToolOutcome> =>
    callTool({ server: 'meeting', client, tool, arguments: args, reporter, signal });

  let outcome = await call('summarize_meeting', {
    path: options.recordingPath,
    sourceLanguage: 'en',
    targetLanguage: 'th',
    title: 'Weekly product sync',
    waitSeconds: 40,
  });
  if (!outcome.ok) return { ok: false, answer: outcome.text, files: [] };
  const jobId = String(outcome.structured?.jobId ?? '');

  for (let calls = 0; outcome.structured?.done === false && calls < MAX_WAIT_CALLS; calls++) {
    outcome = await call('get_meeting', { jobId, waitSeconds: 40, include: ['summary'] });
    if (!outcome.ok) return { ok: false, jobId, answer: outcome.text, files: [] };
  }
  if (outcome.structured?.done === false) {
    return {
      ok: false,
      jobId,
      answer: `Job ${jobId} is still running; resume it later with get_meeting.`,
      files: [],
    };
  }
  if (outcome.structured?.status !== 'COMPLETED') {
    return { ok: false, jobId, answer: outcome.text, files: [] };
  }

  const files: string[] = [];
  for (const [what, format] of [
    ['summary', 'md'],
    ['transcript', 'srt'],
    ['translation', 'vtt'],
  ] as const) {
    const exported = await call('export_meeting', { jobId, what, format });
    const savedPath = exported.structured?.path;
    if (exported.ok && typeof savedPath === 'string') files.push(savedPath);
  }
  return { ok: true, jobId, answer: renderSummary(outcome.structured), files };
}

interface SummaryLike {
  overview?: string;
  decisions?: { text?: string }[];
  actionItems?: { text?: string; owner?: string; ownerSpeakerId?: string; dueDate?: string }[];
  openQuestions?: { text?: string }[];
}

/** The final answer a person reads: overview, decisions, action items with owners, open questions. */
export function renderSummary(structured: Record<string, unknown> | undefined): string {
  const summary = (structured?.summary ?? {}) as SummaryLike;
  const lines: string[] = [];
  const title = typeof structured?.title === 'string' ? structured.title : 'Meeting';
  lines.push(`${title}`);
  if (summary.overview) lines.push(`  ${summary.overview}`);
  const section = (heading: string, items: string[]) => {
    if (items.length === 0) return;
    lines.push(`\n  ${heading}`);
    for (const item of items) lines.push(`   • ${item}`);
  };
  section('Decisions', (summary.decisions ?? []).map((item) => item.text ?? '').filter(Boolean));
  section(
    'Action items',
    (summary.actionItems ?? []).map((item) => {
      const owner = item.owner ?? item.ownerSpeakerId;
      const due = item.dueDate ? `, due ${item.dueDate}` : '';
      return `${item.text ?? ''}${owner ? ` (${owner}${due})` : due ? ` (${due.slice(2)})` : ''}`;
    }),
  );
  section('Open questions', (summary.openQuestions ?? []).map((item) => item.text ?? '').filter(Boolean));
  return lines.join('\n');
}
