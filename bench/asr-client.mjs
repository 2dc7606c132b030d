#!/usr/bin/env node
// Child process of the recognition benchmark: streams tone-coded Thai speech through @polymodal/core's
// thaiAsr.transcribe against a sandbox running in another process, and reports its own CPU per 20 ms
// frame (unpaced run) and the first-partial latency it observed beside the one the server reported
// (real-time run).
//   node asr-client.mjs <baseUrl>   (key in POLYMODAL_API_KEY)
import { createPolymodal } from '@polymodal/core';
import { decodeWavToPcm16 } from '@polymodal/core/audio';
import { createThaiSpeech, THAI_PHRASES } from '@polymodal/sandbox';

const [baseUrl] = process.argv.slice(2);
const polymodal = createPolymodal({ baseUrl, apiKey: process.env.POLYMODAL_API_KEY, ledger: false });

// Unpaced: about 30 s of audio, CPU time of this process per 20 ms frame of audio.
const long = decodeWavToPcm16(
  createThaiSpeech({ phrases: [...THAI_PHRASES, ...THAI_PHRASES].slice(0, 24), sampleRate: 44_100 }),
  16_000,
);
const cpuBefore = process.cpuUsage();
const unpaced = await polymodal.thaiAsr.transcribe({ samples: long, speed: 0 });
const cpu = process.cpuUsage(cpuBefore);
const frames = (unpaced.audioSeconds * 1000) / 20;
const cpuPerFrameMs = (cpu.user + cpu.system) / 1000 / frames;

// Real time: when did the first partial arrive, relative to when the audio it covers was sent?
const short = decodeWavToPcm16(createThaiSpeech({ phrases: [THAI_PHRASES[1], THAI_PHRASES[6]] }), 16_000);
let startedAt = 0;
let firstPartial;
await polymodal.thaiAsr.transcribe({
  samples: short,
  speed: 1,
  onEvent: (event) => {
    if (event.type === 'started') startedAt = performance.now();
    if (event.type === 'partial' && !firstPartial) {
      const due = event.audio_ms;
      firstPartial = { observedMs: performance.now() - startedAt - due, reportedMs: event.latency_ms };
    }
  },
});
await polymodal.close();
process.stdout.write(
  `${JSON.stringify({ frames, cpuPerFrameMs, audioSeconds: unpaced.audioSeconds, correct: unpaced.segments.length === 24, firstPartial })}\n`,
);
