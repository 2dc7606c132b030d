import { describe, expect, it } from 'vitest';
import { type PlannerMessage, planTurn } from './planner-model.js';

/** Messages written the way the servers' prompts write them (one user message each). */
const minutesPrompt = [
  'Write the minutes of the meeting recorded in "/m/sync.wav".',
  '1. Call summarize_meeting with {"path":"/m/sync.wav","sourceLanguage":"en","targetLanguage":"th"}.',
  '2. While a result says done=false, call get_meeting with its jobId and "waitSeconds": 40, until done=true. Do not call summarize_meeting again for this recording: a new job would be paid twice.',
  '3. Call export_meeting with that jobId, "what": "summary" and "format": "md". If I asked for subtitles or the transcript, also export "what": "transcript" in the format I asked for ("srt", "vtt" or "md").',
  '4. Hand back the summary, the decisions taken and the exported file.',
].join('\n');
const readingPrompt = (text?: string) =>
  [
    'Check the Thai reading recorded in "/m/r.wav".',
    text === undefined
      ? '0. First ask me for the Thai text the student was reading, and wait for my answer; use it as "referenceText" below.'
      : `The student was reading ${JSON.stringify(text)}.`,
    `1. Call score_reading with ${JSON.stringify({ studentAudioPath: '/m/r.wav', referenceText: text })}${text === undefined ? ', adding my text as "referenceText"' : ''}.`,
    '2. If a result says done=false, call get_reading_score with its jobId and "waitSeconds": 40, until done=true.',
  ].join('\n');
const transcriptPrompt = (recording: string) =>
  `Transcribe the Thai recording "${recording}".\n1. Call transcribe_thai with {"audioPath":"${recording}"}.\n2. Hand back the Thai text.`;

const tools = [
  'summarize_meeting',
  'get_meeting',
  'export_meeting',
  'synthesize_speech',
  'score_reading',
  'get_reading_score',
  'transcribe_thai',
];

const structured = (text: string, value: Record<string, unknown>) =>
  `${text}\nstructuredContent: ${JSON.stringify(value)}`;

/** The person's messages, then each turn's call and its result, as native tool calls. */
function conversation(
  requests: string[],
  steps: [string, Record<string, unknown>, string][],
): PlannerMessage[] {
  const messages: PlannerMessage[] = requests.map((content) => ({ role: 'user', content }));
  steps.forEach(([name, args, content], index) => {
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: `c${index}`, function: { name, arguments: JSON.stringify(args) } }],
    });
    messages.push({ role: 'tool', tool_call_id: `c${index}`, content });
  });
  return messages;
}

/** Runs the planner turn by turn, answering each call from `results`, and returns the calls and the answer. */
function run(
  requests: string[],
  offered: readonly string[],
  results: (name: string, args: Record<string, unknown>, turn: number) => string,
): { calls: [string, Record<string, unknown>][]; answer: string } {
  const steps: [string, Record<string, unknown>, string][] = [];
  for (let turn = 0; turn < 20; turn++) {
    const next = planTurn(conversation(requests, steps), offered);
    if (next.kind === 'answer')
      return {
        calls: steps.map(([name, args]): [string, Record<string, unknown>] => [name, args]),
        answer: next.text,
      };
    steps.push([next.name, next.arguments, results(next.name, next.arguments, turn)]);
  }
  throw new Error('the planner did not answer within 20 turns');
}

const summary = {
  decisions: [{ text: 'Ship on Monday' }],
  actionItems: [{ text: 'Prepare the rollback plan and share it by Friday', owner: 'Speaker 2' }],
  openQuestions: [],
};

/** What the tools answer: the meeting needs one wait, the rest finish at once. */
function platform(name: string, args: Record<string, unknown>): string {
  switch (name) {
    case 'summarize_meeting':
      return structured('Meeting job mtg_1 is still TRANSCRIBING.', {
        jobId: 'mtg_1',
        status: 'TRANSCRIBING',
        done: false,
        next: 'call get_meeting with jobId=mtg_1 to keep waiting',
      });
    case 'get_meeting':
      return structured('Meeting job mtg_1 COMPLETED.', {
        jobId: 'mtg_1',
        status: 'COMPLETED',
        done: true,
        summary,
      });
    case 'export_meeting':
      return structured(`Saved /o/mtg_1.${String(args.format)}`, {
        jobId: 'mtg_1',
        path: `/o/mtg_1.${String(args.format)}`,
      });
    case 'retranslate_meeting':
      return structured('Meeting job mtg_1 translated.', { jobId: 'mtg_1', status: 'COMPLETED', done: true });
    case 'synthesize_speech':
      return structured('Speech saved to /o/s.wav', { done: true, savedPath: '/o/s.wav' });
    case 'score_reading':
      return structured('6 of 7 words correct; practise: อ่าน.', {
        done: true,
        correctWords: 6,
        referenceWords: 7,
        feedback: { practise: ['อ่าน'] },
      });
    default:
      return structured('Transcribed.', { text: `speech of ${String(args.audioPath)}`, complete: true });
  }
}

describe('planner rule S: follow the steps a message spells out', () => {
  it("takes each prompt's calls in the order written, with their arguments, waiting on a job first", () => {
    const { calls, answer } = run(
      [minutesPrompt, readingPrompt('ฉันชอบอ่าน'), transcriptPrompt('/m/t.wav')],
      tools,
      platform,
    );
    expect(calls).toEqual([
      ['summarize_meeting', { path: '/m/sync.wav', sourceLanguage: 'en', targetLanguage: 'th' }],
      // Rule 1 before the next step: the prompt's own "while done=false" is the job's `next`.
      ['get_meeting', { jobId: 'mtg_1', waitSeconds: 40 }],
      // "that jobId": the job the step before started; only the format the prompt names, though it
      // mentions srt and vtt as choices.
      ['export_meeting', { jobId: 'mtg_1', what: 'summary', format: 'md' }],
      ['score_reading', { studentAudioPath: '/m/r.wav', referenceText: 'ฉันชอบอ่าน' }],
      ['transcribe_thai', { audioPath: '/m/t.wav' }],
    ]);
    expect(answer).toContain('Action items:\n- Prepare the rollback plan and share it by Friday (Speaker 2)');
    expect(answer).toContain('What the student should practise:\n- อ่าน');
    expect(answer).toContain('What the Thai speech says:\n- speech of /m/t.wav');
  });

  it('reads a message in free words at its place among the prompts, with the rules for words', () => {
    const also = 'Also export the transcript as SRT and synthesise the action items as speech in Thai.';
    const { calls } = run([minutesPrompt, also, transcriptPrompt('/m/t.wav')], tools, platform);
    expect(
      calls.map(([name, args]) => `${name} ${String(args.format ?? args.language ?? '')}`.trim()),
    ).toEqual([
      'summarize_meeting',
      'get_meeting',
      'export_meeting md',
      'export_meeting srt',
      'synthesize_speech th',
      'transcribe_thai',
    ]);
  });

  it('skips a tool that is not offered, and takes the same tool again for another prompt with other arguments', () => {
    const { calls } = run(
      [minutesPrompt, transcriptPrompt('/m/t.wav'), transcriptPrompt('/m/u.wav')],
      ['transcribe_thai'],
      platform,
    );
    // Without summarize_meeting there is no job for "that jobId" either: the export is skipped too.
    expect(calls).toEqual([
      ['transcribe_thai', { audioPath: '/m/t.wav' }],
      ['transcribe_thai', { audioPath: '/m/u.wav' }],
    ]);
  });

  it('takes a tool again when a later prompt calls it with other arguments: two exports of one meeting', () => {
    const translate = [
      'Translate the meeting job "mtg_1" into "fr".',
      '1. Call retranslate_meeting with {"jobId":"mtg_1","targetLanguage":"fr"}. If it answers that the job is still running, first call get_meeting with {"jobId":"mtg_1","waitSeconds":40} until done=true, then call retranslate_meeting once more.',
      '2. While a result says done=false, call get_meeting with {"jobId":"mtg_1","include":["translation"],"waitSeconds":40}, until done=true.',
      '3. Call export_meeting with {"jobId":"mtg_1","what":"translation","format":"md"} (or "srt" or "vtt" if I asked for subtitles).',
    ].join('\n');
    const { calls } = run([minutesPrompt, translate], [...tools, 'retranslate_meeting'], platform);
    expect(calls.slice(2)).toEqual([
      ['export_meeting', { jobId: 'mtg_1', what: 'summary', format: 'md' }],
      ['retranslate_meeting', { jobId: 'mtg_1', targetLanguage: 'fr' }],
      ['export_meeting', { jobId: 'mtg_1', what: 'translation', format: 'md' }],
    ]);
  });

  it('asks for a text the step leaves to the person, and fills it from their reply', () => {
    const prompt = readingPrompt();
    const asked = planTurn([{ role: 'user', content: prompt }], tools);
    expect(asked).toEqual({
      kind: 'answer',
      text: 'To call score_reading I need your text for "referenceText": please send it.',
    });
    const replied: PlannerMessage[] = [
      { role: 'user', content: prompt },
      { role: 'assistant', content: asked.kind === 'answer' ? asked.text : '' },
      { role: 'user', content: 'ฉันชอบอ่านหนังสือ' },
    ];
    expect(planTurn(replied, tools)).toEqual({
      kind: 'tool_call',
      name: 'score_reading',
      arguments: { studentAudioPath: '/m/r.wav', referenceText: 'ฉันชอบอ่านหนังสือ' },
    });
    // A later prompt is no reply: the text is still asked for.
    expect(
      planTurn(
        [
          { role: 'user', content: prompt },
          { role: 'user', content: transcriptPrompt('/m/t.wav') },
        ],
        tools,
      ),
    ).toMatchObject({
      kind: 'answer',
      text: expect.stringContaining('need your text for "referenceText"'),
    });
  });

  it('takes no call written only under a condition, nor a "Call … with" that gives no arguments', () => {
    const conditional =
      'Check the job "mtg_1".\n1. While a result says done=false, call get_meeting with {"jobId":"mtg_1"}.\nThen Call summarize_meeting with care.';
    expect(planTurn([{ role: 'user', content: conditional }], tools)).toEqual({
      kind: 'answer',
      text: 'There was nothing to do with the tools on offer for this task.',
    });
  });

  it('reads the results of the JSON protocol as results, not as messages of the person', () => {
    const messages: PlannerMessage[] = [
      { role: 'system', content: 'Reply with {"tool": ...}.\n- transcribe_thai: transcribes' },
      { role: 'user', content: transcriptPrompt('/m/t.wav') },
      {
        role: 'assistant',
        content: JSON.stringify({ tool: 'transcribe_thai', arguments: { audioPath: '/m/t.wav' } }),
      },
      {
        role: 'user',
        content: `Result of transcribe_thai:\n${structured('Transcribed.', { text: 'สวัสดีครับ', complete: true })}`,
      },
    ];
    const answer = planTurn(messages, ['transcribe_thai']);
    expect(answer.kind === 'answer' && answer.text).toContain('What the Thai speech says:\n- สวัสดีครับ');
  });
});
