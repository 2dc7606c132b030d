import { describe, expect, it } from 'vitest';
import { createConsoleReporter, createJsonReporter, createSecretMask, type TraceEvent } from './reporter.js';

const KEY = 'sk-"quoted"-secret';
const run: TraceEvent[] = [
  { type: 'call', server: 'media', tool: 'get_video_job', arguments: { jobId: 'vid_1' } },
  { type: 'progress', tool: 'get_video_job', progress: 10, total: 100, message: 'processing 10%' },
  { type: 'progress', tool: 'get_video_job', progress: 60, total: 100, message: 'processing 60%' },
  { type: 'result', tool: 'get_video_job', ok: true, seconds: 2, brief: 'Video vid_1 is ready' },
  { type: 'answer', text: `Done; the key was ${KEY}` },
];

function capture() {
  let text = '';
  return { write: (chunk: string) => (text += chunk), text: () => text };
}

describe('createConsoleReporter', () => {
  it('writes one plain line per change, without escapes or carriage returns, when not on a terminal', () => {
    const out = capture();
    const reporter = createConsoleReporter({ style: { colour: false, redraw: false }, write: out.write });
    for (const event of run) reporter.emit(event);
    reporter.finish();
    expect(out.text()).not.toMatch(/[\x1b\r]/);
    expect(out.text()).toContain(
      '  … processing 10%\n  … processing 60%\n  ✓ Video vid_1 is ready (2.0 s)\n',
    );
  });

  it('redraws the progress line in place on a terminal and replaces it with the result', () => {
    const out = capture();
    const reporter = createConsoleReporter({ style: { colour: true, redraw: true }, write: out.write });
    for (const event of run) reporter.emit(event);
    expect(out.text()).toContain(
      '\r\x1b[2K\x1b[2m  … processing 10%\x1b[0m\r\x1b[2K\x1b[2m  … processing 60%\x1b[0m',
    );
    expect(out.text()).toContain('60%\x1b[0m\r\x1b[2K  \x1b[32m✓\x1b[0m Video vid_1 is ready');
  });

  it('masks a secret in whatever it prints', () => {
    const out = capture();
    const reporter = createConsoleReporter({
      style: { colour: false, redraw: false },
      write: out.write,
      mask: createSecretMask([KEY]),
    });
    for (const event of run) reporter.emit(event);
    expect(out.text()).toContain('the key was ***');
    expect(out.text()).not.toContain(KEY);
  });
});

describe('the task on the console', () => {
  it('names each prompt with its server and arguments in brief, and shows the words beside them', () => {
    const out = capture();
    const reporter = createConsoleReporter({ style: { colour: false, redraw: false }, write: out.write });
    reporter.emit({
      type: 'task',
      text: 'Transcribe the Thai recording "/data/media/sample-thai-speech.wav".\n1. Call transcribe_thai with …',
      tools: 27,
      parts: [
        {
          prompt: 'thai_transcript',
          server: 'speech',
          arguments: { recording: '/data/media/sample-thai-speech.wav' },
        },
        { words: 'Also say hello.' },
      ],
    });
    expect(out.text()).toBe(
      "Task (27 tools available), from the servers' prompts:\n  /thai_transcript (speech) recording=sample-thai-speech.wav\n  Also say hello.\n",
    );
  });

  it('shows a task in words as it is', () => {
    const out = capture();
    const reporter = createConsoleReporter({ style: { colour: false, redraw: false }, write: out.write });
    reporter.emit({ type: 'task', text: 'Say hello.', tools: 3, parts: [{ words: 'Say hello.' }] });
    expect(out.text()).toBe('Task (3 tools available): Say hello.\n');
  });
});

describe('createSecretMask', () => {
  it('masks keys but leaves a short placeholder such as "none" alone', () => {
    const mask = createSecretMask([KEY, 'none', undefined, '']);
    expect(mask(`key ${KEY}; none of the jobs failed`)).toBe('key ***; none of the jobs failed');
  });
});

describe('createJsonReporter', () => {
  it('writes each event at once as one numbered JSON line, with the secret masked even when escaped', () => {
    const out = capture();
    const reporter = createJsonReporter({
      write: out.write,
      mask: createSecretMask([KEY]),
      now: () => new Date('2026-01-02T03:04:05.000Z'),
    });
    reporter.emit(run[0] as TraceEvent);
    expect(out.text()).toBe(
      '{"type":"call","server":"media","tool":"get_video_job","arguments":{"jobId":"vid_1"},"seq":1,"at":"2026-01-02T03:04:05.000Z"}\n',
    );
    for (const event of run.slice(1)) reporter.emit(event);
    const lines = out.text().trimEnd().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { seq: number }).seq)).toEqual([1, 2, 3, 4, 5]);
    expect(JSON.parse(lines[4] as string)).toMatchObject({ type: 'answer', text: 'Done; the key was ***' });
    expect(out.text()).not.toContain(JSON.stringify(KEY).slice(1, -1));
  });
});
