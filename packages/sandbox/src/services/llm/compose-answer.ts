/**
 * Rule 8 of the planner, the final answer: what each tool reported (first line), then each part under a
 * heading that says what it is, taken from the latest result of the tool that produced it.
 */
import type { ToolExchange } from './conversation.js';

/** The tools whose results carry a meeting's summary. */
const MEETING_TOOLS = [
  'summarize_meeting',
  'get_meeting',
  'retry_meeting',
  'resummarize_meeting',
  'retranslate_meeting',
];

export function composeAnswer(exchanges: readonly ToolExchange[]): string {
  if (exchanges.length === 0) return 'There was nothing to do with the tools on offer for this task.';
  const lines = ['Done. What the tools reported:'];
  for (const exchange of exchanges) {
    const first = exchange.text.split('\n').find((line) => line.trim() !== '') ?? '(no text)';
    lines.push(`- ${exchange.name}: ${first.replace(/^ERROR from [a-z_]+: /, 'failed: ')}`);
  }
  /** The result of the last call of one of `tools` that has what `has` looks for. */
  const latestOf = (tools: readonly string[], has: (result: Record<string, unknown>) => boolean) =>
    [...exchanges]
      .reverse()
      .find((exchange) => tools.includes(exchange.name) && exchange.result && has(exchange.result))?.result;
  const meeting = latestOf(MEETING_TOOLS, (result) => typeof result.summary === 'object');
  const summary = meeting?.summary as Record<string, unknown> | undefined;
  if (summary) {
    const section = (title: string, items: unknown) => {
      if (!Array.isArray(items) || items.length === 0) return;
      lines.push('', `${title}:`);
      for (const item of items as Record<string, unknown>[]) {
        const owner =
          typeof item.owner === 'string'
            ? ` (${item.owner}${item.dueDate ? `, due ${item.dueDate}` : ''})`
            : '';
        lines.push(`- ${String(item.text ?? '')}${owner}`);
      }
    };
    section('Decisions', summary.decisions);
    section('Action items', summary.actionItems);
    section('Open questions', summary.openQuestions);
  }
  const reading = latestOf(['score_reading', 'get_reading_score'], (result) => result.done === true);
  if (reading && typeof reading.referenceWords === 'number') {
    const practise = ((reading.feedback as { practise?: unknown } | undefined)?.practise ?? []) as unknown[];
    lines.push(
      '',
      'What the student should practise:',
      practise.length > 0
        ? `- ${practise.map(String).join(', ')}`
        : '- nothing: every word was read as written',
      `- ${String(reading.correctWords)} of ${String(reading.referenceWords)} words read correctly`,
    );
  }
  const speech = latestOf(['transcribe_thai'], (result) => typeof result.text === 'string');
  if (speech && String(speech.text).trim() !== '') {
    lines.push('', 'What the Thai speech says:', `- ${String(speech.text).trim()}`);
  }
  const cards = latestOf(['create_flashcards', 'get_flashcards'], (result) => Array.isArray(result.segments));
  const segments = (cards?.segments ?? []) as { text?: unknown; translation?: unknown }[];
  if (segments.length > 0) {
    lines.push('', 'First flashcards:');
    for (const segment of segments.slice(0, 3)) {
      const translation = typeof segment.translation === 'string' ? ` — ${segment.translation}` : '';
      lines.push(`- ${String(segment.text ?? '')}${translation}`);
    }
  }
  const files = exchanges
    .map((exchange) => exchange.result?.path ?? exchange.result?.savedPath)
    .filter((value): value is string => typeof value === 'string');
  if (files.length > 0) lines.push('', 'Files:', ...files.map((file) => `- ${file}`));
  return lines.join('\n');
}
