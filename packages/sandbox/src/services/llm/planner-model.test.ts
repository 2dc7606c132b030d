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

/** A conversation as the demo keeps it: native tool calls and their results, in order. */
function exchangeLog(task: string, steps: [string, Record<string, unknown>, string][]): PlannerMessage[] {
  const messages: PlannerMessage[] = [{ role: 'user', content: task }];
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

const structured = (text: string, value: Record<string, unknown>) =>
  `${text}\nstructuredContent: ${JSON.stringify(value)}`;

const catalog = {
  models: [
    {
      id: 'hub:image-animate-pro',
      category: 'image-to-video',
      required: ['prompt', 'image_url'],
      parameters: [{ name: 'duration', type: 'integer', required: false, minimum: 2, maximum: 10 }],
    },
    {
      id: 'hub:text-to-video-lite',
      category: 'text-to-video',
      required: ['prompt'],
      parameters: [
        { name: 'prompt', type: 'string', required: true },
        { name: 'duration', type: 'integer', required: false, values: [5, 10] },
        { name: 'aspect_ratio', type: 'string', required: false, values: ['16:9', '9:16', '1:1'] },
      ],
    },
  ],
};
const catalogText =
  '2 video models:\n- hub:image-animate-pro (image-to-video): requires prompt, image_url\n- hub:text-to-video-lite (text-to-video): requires prompt';
const videoTools = [
  'summarize_meeting',
  'list_video_models',
  'generate_video',
  'get_video_job',
  'image_to_video',
];
const boat =
  'Make a 5-second video of a paper boat drifting across a pond at sunrise. Then tell me where it is.';

describe('planner rule: make a video', () => {
  it('reads the catalog, generates with its text-to-video model, follows the handle and names the file', () => {
    expect(planTurn(exchangeLog(boat, []), videoTools)).toEqual({
      kind: 'tool_call',
      name: 'list_video_models',
      arguments: {},
    });
    const listed: [string, Record<string, unknown>, string] = [
      'list_video_models',
      {},
      structured(catalogText, catalog),
    ];
    expect(planTurn(exchangeLog(boat, [listed]), videoTools)).toEqual({
      kind: 'tool_call',
      name: 'generate_video',
      arguments: {
        model: 'hub:text-to-video-lite',
        prompt: 'a paper boat drifting across a pond at sunrise',
        duration: 5,
        waitSeconds: 0,
      },
    });
    const started: [string, Record<string, unknown>, string] = [
      'generate_video',
      { model: 'hub:text-to-video-lite' },
      structured('Video vid_1 is queued.', {
        jobId: 'vid_1',
        status: 'queued',
        done: false,
        next: 'call get_video_job with jobId=vid_1 (waitSeconds up to 50) to keep waiting',
      }),
    ];
    expect(planTurn(exchangeLog(boat, [listed, started]), videoTools)).toEqual({
      kind: 'tool_call',
      name: 'get_video_job',
      arguments: { jobId: 'vid_1', waitSeconds: 40 },
    });
    const finished: [string, Record<string, unknown>, string] = [
      'get_video_job',
      { jobId: 'vid_1' },
      structured('Video vid_1 is ready: saved to /out/video-vid_1.mp4 (12 KB).', {
        jobId: 'vid_1',
        status: 'done',
        done: true,
        savedPath: '/out/video-vid_1.mp4',
      }),
    ];
    const answer = planTurn(exchangeLog(boat, [listed, started, finished]), videoTools);
    expect(answer.kind).toBe('answer');
    expect(answer.kind === 'answer' && answer.text).toContain('Files:\n- /out/video-vid_1.mp4');
  });

  it("snaps the seconds to the model's values and passes a ratio the model offers", () => {
    const listed: [string, Record<string, unknown>, string] = [
      'list_video_models',
      {},
      structured(catalogText, catalog),
    ];
    const task = (words: string) => exchangeLog(words, [listed]);
    expect(planTurn(task('Generate a vertical 7 s video of rain on a window.'), videoTools)).toMatchObject({
      arguments: { duration: 5, aspectRatio: '9:16', prompt: 'rain on a window' },
    });
    expect(
      planTurn(task('Create an 8 seconds square video about a city at night'), videoTools),
    ).toMatchObject({
      arguments: { duration: 10, aspectRatio: '1:1', prompt: 'a city at night' },
    });
    // No seconds named: the model's default; a ratio the model does not offer is left out.
    const plain = planTurn(task('Please make a 4:3 video of a red kite.'), videoTools);
    expect(plain).toMatchObject({ name: 'generate_video', arguments: { prompt: 'a red kite' } });
    expect(plain.kind === 'tool_call' && Object.keys(plain.arguments).sort()).toEqual([
      'model',
      'prompt',
      'waitSeconds',
    ]);
  });

  it('reads the model from the text when the structured catalog was cut off, and guesses none without a catalog', () => {
    const cut: [string, Record<string, unknown>, string] = [
      'list_video_models',
      {},
      `${catalogText}\n[truncated]`,
    ];
    expect(planTurn(exchangeLog(boat, [cut]), videoTools)).toMatchObject({
      name: 'generate_video',
      arguments: { model: 'hub:text-to-video-lite', duration: 5 },
    });
    const failed: [string, Record<string, unknown>, string] = [
      'list_video_models',
      {},
      'ERROR from list_video_models: 503: the service is unavailable',
    ];
    expect(planTurn(exchangeLog(boat, [failed]), videoTools).kind).toBe('answer');
    expect(planTurn(exchangeLog(boat, []), ['generate_video', 'get_video_job']).kind).toBe('answer');
  });

  it('does not make a video for a task that only mentions one', () => {
    const task = 'Create a summary of the meeting video at /m/a.mp4.';
    expect(planTurn(conversation(task), ['summarize_meeting', ...videoTools]).kind).toBe('answer');
    expect(planTurn(exchangeLog(task, []), videoTools)).toMatchObject({ name: 'summarize_meeting' });
  });

  it('animates a named image with image_to_video, the duration clamped to its range', () => {
    const turn = planTurn(
      exchangeLog('Make a 12-second video of the cat at /m/cat.png waving at the camera.', []),
      videoTools,
    );
    expect(turn).toEqual({
      kind: 'tool_call',
      name: 'image_to_video',
      arguments: {
        image: '/m/cat.png',
        prompt: 'the cat at /m/cat.png waving at the camera',
        duration: 10,
        waitSeconds: 0,
      },
    });
  });
});

const flashcardTools = ['summarize_meeting', 'transcribe_thai', 'create_flashcards', 'get_flashcards'];

describe('planner rule: make flashcards', () => {
  it('starts flashcards from a local video (not a meeting summary), follows the handle and shows the first cards', () => {
    const task =
      'Make Thai to Chinese flashcards from the video at /m/lesson.mp4, then tell me what they cover.';
    expect(planTurn(exchangeLog(task, []), flashcardTools)).toEqual({
      kind: 'tool_call',
      name: 'create_flashcards',
      arguments: { video: '/m/lesson.mp4', learningDirection: 'thai_to_chinese', waitSeconds: 0 },
    });
    const started: [string, Record<string, unknown>, string] = [
      'create_flashcards',
      { video: '/m/lesson.mp4' },
      structured('Flashcards vf_1 are queued.', {
        jobId: 'vf_1',
        status: 'queued',
        done: false,
        next: 'call get_flashcards with jobId=vf_1 (waitSeconds up to 50) to keep waiting',
      }),
    ];
    expect(planTurn(exchangeLog(task, [started]), flashcardTools)).toEqual({
      kind: 'tool_call',
      name: 'get_flashcards',
      arguments: { jobId: 'vf_1', waitSeconds: 40 },
    });
    const finished: [string, Record<string, unknown>, string] = [
      'get_flashcards',
      { jobId: 'vf_1' },
      structured('Flashcards vf_1 are ready: 2 segments, 5 words (th → zh).', {
        jobId: 'vf_1',
        status: 'completed',
        done: true,
        segments: [
          { text: 'สวัสดีครับ', translation: '你好' },
          { text: 'ขอบคุณ', translation: '谢谢' },
        ],
        savedPath: '/out/flashcards-vf_1.json',
      }),
    ];
    const answer = planTurn(exchangeLog(task, [started, finished]), flashcardTools);
    expect(answer.kind === 'answer' && answer.text).toContain(
      'First flashcards:\n- สวัสดีครับ — 你好\n- ขอบคุณ — 谢谢',
    );
    expect(answer.kind === 'answer' && answer.text).toContain('- /out/flashcards-vf_1.json');
  });

  it('takes a URL (direct or YouTube) and the direction the task names', () => {
    const first = (task: string) => planTurn(exchangeLog(task, []), flashcardTools);
    expect(first('Create flashcards for a Japanese speaker from https://media.example/lesson.mp4.')).toEqual({
      kind: 'tool_call',
      name: 'create_flashcards',
      arguments: {
        video: 'https://media.example/lesson.mp4',
        sourceType: 'direct_video_url',
        learningDirection: 'japanese_to_chinese',
        waitSeconds: 0,
      },
    });
    expect(first('Chinese to Thai flashcards from https://youtu.be/abcdefghijk please')).toMatchObject({
      arguments: { video: 'https://youtu.be/abcdefghijk', learningDirection: 'chinese_to_thai' },
    });
    // A YouTube link is the service's default source type: none is sent.
    expect(first('Flashcards from https://www.youtube.com/watch?v=abcdefghijk')).toEqual({
      kind: 'tool_call',
      name: 'create_flashcards',
      arguments: {
        video: 'https://www.youtube.com/watch?v=abcdefghijk',
        learningDirection: 'thai_to_chinese',
        waitSeconds: 0,
      },
    });
  });

  it('still summarises a meeting a flashcards task names after the word "meeting"', () => {
    const task = 'Make flashcards from /m/lesson.mp4 and summarise the meeting at /m/sync.wav.';
    expect(planTurn(exchangeLog(task, []), flashcardTools)).toMatchObject({
      name: 'summarize_meeting',
      arguments: { path: '/m/sync.wav' },
    });
    expect(planTurn(exchangeLog('Flashcards please, no video given.', []), flashcardTools).kind).toBe(
      'answer',
    );
  });
});

describe('planner rule: answer', () => {
  it('labels each part of the answer by the tool that produced it: a Thai transcript is never a flashcard', () => {
    const task = 'Score the reading at /m/r.wav against ฉันชอบอ่าน and transcribe the Thai speech at /m/t.wav.';
    const steps: [string, Record<string, unknown>, string][] = [
      [
        'score_reading',
        { studentAudioPath: '/m/r.wav' },
        structured('2 of 3 words correct; practise: อ่าน.', {
          done: true,
          correctWords: 2,
          referenceWords: 3,
          feedback: { practise: ['อ่าน'], missingWords: ['อ่าน'], extraWords: [], substitutions: [] },
        }),
      ],
      [
        'transcribe_thai',
        { audioPath: '/m/t.wav' },
        structured('Transcribed 2 segments.', {
          text: 'สวัสดีครับ ประชุมเริ่มตอนเก้าโมง',
          segments: [
            { start: 0, end: 1, text: 'สวัสดีครับ' },
            { start: 1, end: 3, text: 'ประชุมเริ่มตอนเก้าโมง' },
          ],
          complete: true,
        }),
      ],
    ];
    const answer = planTurn(exchangeLog(task, steps), ['score_reading', 'transcribe_thai']);
    const text = answer.kind === 'answer' ? answer.text : '';
    expect(text).toContain('What the student should practise:\n- อ่าน\n- 2 of 3 words read correctly');
    expect(text).toContain('What the Thai speech says:\n- สวัสดีครับ ประชุมเริ่มตอนเก้าโมง');
    expect(text).not.toContain('First flashcards:');
  });
});
