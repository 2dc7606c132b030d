/**
 * Every tool of the combined server, called in an order that gives each the jobs and files it reads: the
 * flow the protocol-generation tests run for each generation and transport, against a sandbox.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { ToolResult } from '@polymodal/mcp-common/testing';
import {
  createReadingRecording,
  createThaiSpeech,
  readMediaFixture,
  SAMPLE_READING_TEXT,
  synthesizeVoice,
  THAI_PHRASES,
  writeMeetingRecording,
} from '@polymodal/sandbox';
import { expect } from 'vitest';

/** What a call came to, as a host would tell two answers apart without reading ids or times. */
export interface CallSummary {
  tool: string;
  isError: boolean;
  fields: string[];
}

export interface ToolCaller {
  client: Client;
  call: (name: string, args?: Record<string, unknown>) => Promise<ToolResult>;
}

/** The files the flow reads, in `<root>/media`. */
export async function writeEveryToolInputs(root: string): Promise<void> {
  const media = path.join(root, 'media');
  await mkdir(media);
  await writeMeetingRecording(path.join(media, 'standup.wav'), {
    script: [
      { speaker: 'A', text: 'Good morning. Today we ship the release.' },
      { speaker: 'B', text: 'I will write the notes by Friday.' },
    ],
  });
  await writeFile(path.join(media, 'thai.wav'), createThaiSpeech({ phrases: THAI_PHRASES.slice(0, 2) }));
  await writeFile(
    path.join(media, 'voice.wav'),
    synthesizeVoice({ text: 'This is my voice.', pitchHz: 180, seed: 7 }),
  );
  // Long enough to be queued by the platform rather than scored at once, so that it has a job to follow.
  await writeFile(
    path.join(media, 'reading.wav'),
    createReadingRecording({ attempts: [SAMPLE_READING_TEXT], secondsPerAttempt: 25 }),
  );
  await writeFile(path.join(media, 'cat.png'), readMediaFixture('png'));
  await writeFile(path.join(media, 'lesson.mp4'), readMediaFixture('mp4'));
}

/** Every tool of the combined server, in an order that gives each the jobs and files it reads. */
/** The sandbox's clock, held while a job must be seen still running. */
export interface HeldClock {
  holdClock(): void;
  releaseClock(): void;
}

export async function callEveryTool(
  server: ToolCaller,
  root: string,
  clock: HeldClock,
): Promise<CallSummary[]> {
  const { tools } = await server.client.listTools();
  const called = new Set<string>();
  const summaries: CallSummary[] = [];
  const media = path.join(root, 'media');
  const call = async (tool: string, args: Record<string, unknown> = {}) => {
    const result = await server.call(tool, args);
    called.add(tool);
    summaries.push({ tool, isError: result.isError, fields: Object.keys(result.structured).sort() });
    return result;
  };
  const succeeds = async (tool: string, args: Record<string, unknown> = {}) => {
    const result = await call(tool, args);
    expect(result.isError, `${tool}: ${result.text}`).toBe(false);
    return result;
  };
  const done = async (tool: string, args: Record<string, unknown>) => {
    const result = await succeeds(tool, { ...args, waitSeconds: 45 });
    expect(result.structured.done, `${tool}: ${result.text}`).toBe(true);
    return result;
  };

  for (const tool of ['list_video_models', 'list_llm_models', 'list_voices', 'get_thai_asr_config']) {
    await succeeds(tool);
  }
  await succeeds('ask_llm', { prompt: 'Say hello in Thai.' });

  const meeting = await done('summarize_meeting', { path: path.join(media, 'standup.wav') });
  const meetingId = meeting.structured.jobId as string;
  await done('get_meeting', { jobId: meetingId });
  await succeeds('update_meeting', { jobId: meetingId, title: 'Standup' });
  await succeeds('export_meeting', { jobId: meetingId, what: 'summary', format: 'md' });
  await done('retranslate_meeting', { jobId: meetingId, targetLanguage: 'th' });
  await done('resummarize_meeting', { jobId: meetingId });
  await succeeds('list_meetings');
  // A finished job can be neither retried nor cancelled: each says so, as an error result the model reads.
  expect((await call('retry_meeting', { jobId: meetingId })).isError).toBe(true);
  await call('cancel_meeting', { jobId: meetingId });

  const video = await done('generate_video', {
    model: 'hub:text-to-video-lite',
    prompt: 'A lantern at dusk',
  });
  await done('get_video_job', { jobId: video.structured.jobId });
  await done('image_to_video', { prompt: 'The cat blinks', image: path.join(media, 'cat.png') });
  const deck = await done('create_flashcards', {
    video: path.join(media, 'lesson.mp4'),
    learningDirection: 'thai_to_chinese',
  });
  await done('get_flashcards', { jobId: deck.structured.jobId });
  const speech = await done('synthesize_speech', { text: 'Good morning, everyone.' });
  await done('get_speech', { jobId: speech.structured.jobId });
  await succeeds('register_voice', { audioPath: path.join(media, 'voice.wav'), consent: true });
  // Started without waiting, on a held clock (it is still queued however slow the machine is), so that
  // get_reading_score follows it by its handle.
  clock.holdClock();
  const score = await succeeds('score_reading', {
    studentAudioPath: path.join(media, 'reading.wav'),
    referenceText: SAMPLE_READING_TEXT,
    waitSeconds: 0,
  }).finally(() => clock.releaseClock());
  expect(score.structured.done).toBe(false);
  await done('get_reading_score', { jobId: score.structured.jobId });
  await succeeds('transcribe_thai', { audioPath: path.join(media, 'thai.wav') });
  await succeeds('list_jobs');
  await succeeds('delete_meeting', { jobId: meetingId, confirm: true });

  expect([...called].sort()).toEqual(tools.map((tool) => tool.name).sort());
  return summaries;
}
