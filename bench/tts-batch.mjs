#!/usr/bin/env node
// Child process of the speech synthesis benchmark: 30 sentences synthesised at once through
// @polymodal/core's speech client against a sandbox (separate process) whose keys allow 3 unfinished
// tasks, once with the limit unknown (learned from the first 429) and once configured. Prints JSON.
//   node tts-batch.mjs <baseUrl>   (key in POLYMODAL_API_KEY)
import { createPolymodal } from '@polymodal/core';

const [baseUrl] = process.argv.slice(2);
const apiKey = process.env.POLYMODAL_API_KEY;
const SENTENCES = 30;
const LIMIT = 3;

// 30 different sentences of 50 characters each, so every task takes the same time.
const sentences = Array.from({ length: SENTENCES }, (_, index) =>
  `Sentence ${String(index + 1).padStart(2, '0')} of the benchmark, read aloud.`.padEnd(50, '.'),
);

async function ttsTasks() {
  const response = await fetch(`${baseUrl}/__sandbox/counters`);
  const counters = await response.json();
  return Object.values(counters.ttsTasks ?? {}).reduce((sum, value) => sum + value, 0);
}

async function scenario(label, speechOptions) {
  const polymodal = createPolymodal({ baseUrl, apiKey, ledger: false, speech: speechOptions });
  const before = await ttsTasks();
  const started = performance.now();
  const outcomes = await Promise.allSettled(
    sentences.map((text, index) =>
      polymodal.speech.synthesize({ text, language: 'en', model: 'model_b', seed: index }),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  const created = (await ttsTasks()) - before;
  const failures = outcomes.filter((outcome) => outcome.status === 'rejected');
  const surfaced429 = failures.filter((outcome) => outcome.reason?.status === 429).length;
  const durations = outcomes
    .filter((outcome) => outcome.status === 'fulfilled')
    .map((outcome) => outcome.value.task.result?.metadata?.duration ?? 0);
  const stats = polymodal.speech.stats();
  await polymodal.close();
  return {
    label,
    seconds,
    failed: failures.length,
    surfaced429,
    busyAnswers: stats.busyAnswers,
    posts: stats.posts,
    peakActive: stats.peakActive,
    learnedLimit: polymodal.speech.governor.limit ?? null,
    created,
    duplicates: created - SENTENCES,
    audioSeconds: durations.reduce((sum, value) => sum + value, 0),
  };
}

const unknown = await scenario('limit unknown (learned from the first 429)', {});
const known = await scenario('limit configured (concurrentSessions 3)', { concurrentSessions: LIMIT });
// The sandbox's job time at speed 1: PENDING 0.5 s + STARTED 1 s + 40 ms per character.
const jobSeconds = 0.5 + 1 + 0.04 * sentences[0].length;
const ideal = Math.ceil(SENTENCES / LIMIT) * jobSeconds;
process.stdout.write(
  `${JSON.stringify({ sentences: SENTENCES, limit: LIMIT, jobSeconds, ideal, runs: [unknown, known] })}\n`,
);
