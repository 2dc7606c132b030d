import { describe, expect, it } from 'vitest';
import { type PlannerMessage, planTurn } from './planner-model.js';

const summaryResult = {
  jobId: 'mtg_1',
  status: 'COMPLETED',
  done: true,
  summary: {
    decisions: [],
    actionItems: [
      { text: 'Prepare the rollback plan and share it by Friday', owner: 'Speaker 2' },
      { text: 'Water the office plants', owner: 'Speaker 1' },
    ],
    openQuestions: [],
  },
};

function conversation(task: string, extra: PlannerMessage[] = []): PlannerMessage[] {
  return [
    { role: 'user', content: task },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', function: { name: 'summarize_meeting', arguments: '{"path":"/m/a.wav"}' } }],
    },
    {
      role: 'tool',
      tool_call_id: 'c1',
      content: `Done.\nstructuredContent: ${JSON.stringify(summaryResult)}`,
    },
    ...extra,
  ];
}

const tools = ['summarize_meeting', 'synthesize_speech'];

describe('planner rule: speak the action items', () => {
  it('speaks the action items in the language named after "speech in", translated where the phrase table knows them', () => {
    const turn = planTurn(
      conversation('Summarise the meeting at /m/a.wav and read the action items as speech in Thai.'),
      tools,
    );
    expect(turn).toEqual({
      kind: 'tool_call',
      name: 'synthesize_speech',
      arguments: {
        language: 'th',
        text: 'Speaker 2: เตรียมแผนย้อนกลับและส่งให้ภายในวันศุกร์ Speaker 1: [th] Water the office plants',
      },
    });
  });

  it('uses English sentences with full stops for a language speech synthesis does not offer', () => {
    const turn = planTurn(
      conversation(
        'Summarise the meeting at /m/a.wav, then synthesise the action items as speech in Spanish.',
      ),
      tools,
    );
    expect(turn).toMatchObject({
      name: 'synthesize_speech',
      arguments: {
        language: 'en',
        text: 'Speaker 2: Prepare the rollback plan and share it by Friday. Speaker 1: Water the office plants.',
      },
    });
  });

  it('does not speak when the task does not ask for it, or once it was done', () => {
    expect(planTurn(conversation('Summarise the meeting at /m/a.wav.'), tools).kind).toBe('answer');
    const spoken = conversation('Summarise the meeting at /m/a.wav and the action items as speech in Thai.', [
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c2', function: { name: 'synthesize_speech', arguments: '{"text":"x"}' } }],
      },
      { role: 'tool', tool_call_id: 'c2', content: 'Speech saved to /o/s.wav' },
    ]);
    expect(planTurn(spoken, tools).kind).toBe('answer');
  });
});
