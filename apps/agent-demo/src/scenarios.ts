/**
 * The demo's built-in runs (`--scenario meeting|video|flashcards`, meeting by default) and the sample inputs
 * they use, written into the media folder the servers may read. A task given in words gets every sample,
 * so it can name any of them.
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

export function meetingTask(recordingPath: string, readingPath: string, speechPath: string): string {
  return (
    `Summarise the meeting recording at ${recordingPath} (spoken in English), titled "Weekly product sync", with a ` +
    'Thai translation. Export the summary as Markdown, the transcript as SRT and the Thai translation as VTT, ' +
    'and synthesise the action items as speech in Thai. ' +
    `Then score the student's Thai reading at ${readingPath} against "${SAMPLE_READING_TEXT}", and transcribe ` +
    `the Thai speech at ${speechPath}. Finally tell me the decisions, the action items with their owners, what ` +
    'the student should practise, and what the Thai speech says.'
  );
}

export const VIDEO_TASK =
  'Make a 5-second video of a paper boat drifting across a pond at sunrise. Pick a text-to-video model from ' +
  'the catalog, wait until the video is ready and tell me where it was saved.';

export function flashcardsTask(videoPath: string): string {
  return (
    `Make Thai to Chinese flashcards from the video at ${videoPath}. Wait until they are ready, then tell me ` +
    'how many segments and words they have, show the first cards with their translations and say where the ' +
    'full result was saved.'
  );
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

export function scenarioTask(name: ScenarioName, samples: Partial<Samples>): string {
  switch (name) {
    case 'meeting':
      return meetingTask(
        samples.recordingPath as string,
        samples.readingPath as string,
        samples.speechPath as string,
      );
    case 'video':
      return VIDEO_TASK;
    case 'flashcards':
      return flashcardsTask(samples.videoPath as string);
  }
}
