/**
 * The demo's built-in runs (`--scenario meeting|video|flashcards`, meeting by default) and the sample inputs
 * they use, written into the media folder the servers may read. The meeting and flashcards scenarios are
 * built from the servers' prompts, as a person picks them in a host; the video scenario, which no prompt
 * covers yet, is a task in words. A task given in words gets every sample, so it can name any of them.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  createThaiSpeech,
  SAMPLE_MEETING_SCRIPT,
  SAMPLE_READING_TEXT,
  sampleVideo,
  THAI_PHRASES,
  writeMeetingRecording,
  writeReadingRecording,
} from '@polymodal/sandbox';
import type { TaskPart } from './task-prompts.js';

export const SCENARIOS = ['meeting', 'video', 'flashcards'] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

export function isScenarioName(value: string): value is ScenarioName {
  return (SCENARIOS as readonly string[]).includes(value);
}

export interface Samples {
  recordingPath: string;
  readingPath: string;
  speechPath: string;
  videoPath: string;
}

/**
 * What the meeting scenario adds in words to its prompts: the transcript and translation exports and the
 * action items spoken, which no prompt asks for.
 */
export const MEETING_ALSO =
  'Also export the transcript as SRT and the Thai translation as VTT, and synthesise the action items as speech in Thai.';

/**
 * The meeting scenario as a person would ask for it in a host: three of the servers' prompts (minutes of the
 * English meeting in Thai, the reading scored, the Thai speech transcribed) and one line of words.
 */
export function meetingParts(
  samples: Pick<Samples, 'recordingPath' | 'readingPath' | 'speechPath'>,
): TaskPart[] {
  return [
    {
      prompt: 'meeting_minutes',
      arguments: {
        recording: samples.recordingPath,
        language: 'en',
        minutesLanguage: 'th',
        title: 'Weekly product sync',
      },
    },
    { words: MEETING_ALSO },
    {
      prompt: 'check_thai_reading',
      arguments: { recording: samples.readingPath, referenceText: SAMPLE_READING_TEXT },
    },
    { prompt: 'thai_transcript', arguments: { recording: samples.speechPath } },
  ];
}

export const VIDEO_TASK =
  'Make a 5-second video of a paper boat drifting across a pond at sunrise. Pick a text-to-video model from ' +
  'the catalog, wait until the video is ready and tell me where it was saved.';

/** The flashcards scenario: the media server's prompt, Thai to Chinese, on the sample clip. */
export function flashcardsParts(videoPath: string): TaskPart[] {
  return [{ prompt: 'video_flashcards', arguments: { video: videoPath, direction: 'thai_to_chinese' } }];
}

/** Writes the samples a scenario needs (every sample for a task in words) and returns their paths. */
export async function writeSamples(
  mediaDir: string,
  wanted: ScenarioName | 'all',
): Promise<{ samples: Partial<Samples>; written: string[] }> {
  const samples: Partial<Samples> = {};
  if (wanted === 'meeting' || wanted === 'all') {
    samples.recordingPath = path.join(mediaDir, 'sample-meeting.wav');
    await writeMeetingRecording(samples.recordingPath, { script: SAMPLE_MEETING_SCRIPT });
    // A student who read one word wrong: "write" (เขียน) instead of "read" (อ่าน).
    samples.readingPath = path.join(mediaDir, 'sample-reading.wav');
    await writeReadingRecording(samples.readingPath, { attempts: ['ฉันชอบเขียนหนังสือที่ห้องสมุด'] });
    // "Hello" and "The meeting starts at nine", at 44.1 kHz: the client resamples before streaming.
    samples.speechPath = path.join(mediaDir, 'sample-thai-speech.wav');
    await writeFile(
      samples.speechPath,
      createThaiSpeech({ phrases: [THAI_PHRASES[0], THAI_PHRASES[4]], sampleRate: 44_100 }),
    );
  }
  if (wanted === 'flashcards' || wanted === 'all') {
    // A 2-second H.264/AAC test clip: enough for the service to cut and translate a segment or two.
    samples.videoPath = path.join(mediaDir, 'sample-lesson.mp4');
    await writeFile(samples.videoPath, sampleVideo());
  }
  const written = [samples.recordingPath, samples.readingPath, samples.speechPath, samples.videoPath].filter(
    (file): file is string => typeof file === 'string',
  );
  return { samples, written };
}

/** A scenario's task: the servers' prompts where one fits, else words. */
export function scenarioTask(name: ScenarioName, samples: Partial<Samples>): TaskPart[] {
  switch (name) {
    case 'meeting':
      return meetingParts(samples as Samples);
    case 'video':
      return [{ words: VIDEO_TASK }];
    case 'flashcards':
      return flashcardsParts(samples.videoPath as string);
  }
}
