/**
 * transcribe_thai: streams a local audio file to the platform's streaming Thai recogniser and returns the
 * final text and segments; captions (partials) go out as progress notifications while it runs.
 *
 * The whole call runs within one tool-call deadline (50 s by default): when the audio cannot all be
 * streamed and finalised by then, or the recogniser stops answering, the result is not an error but the
 * text so far, marked incomplete, with how much audio it covers and what to call next.
 *
 * Bad input costs nothing: the file is opened once and checked (inside the allowed directories, a regular
 * file, not empty, a WAV whose header agrees with the file or a format ffmpeg can read, no longer than one
 * transcription streams) before the first request; the core client decodes it block by block while it
 * streams, so a long recording never sits in memory.
 */
import type { TranscribeResult } from '@polymodal/core';
import { redactSecrets } from '@polymodal/core/config';
import { DEFAULT_DOWNLOAD_LIMITS } from '@polymodal/core/download';
import type { ToolDeps } from '@polymodal/mcp-common';
import {
  createProgressReporter,
  createToolDeadline,
  defineTool,
  PLATFORM_WORK_ANNOTATIONS,
  resolveToolInputs,
  toolErrorFor,
} from '@polymodal/mcp-common';
import { z } from 'zod';

/** The fastest pacing the tool accepts (besides 0, unpaced). */
const MAX_SPEED = 20;

const describeTool = (seconds: number) =>
  `Transcribes Thai speech from an audio file (WAV; other formats with ffmpeg) with the streaming recogniser: text and timed segments, live captions as progress. Paced at real time (speed 1); over ~${streamingBudgetSeconds(seconds)} s of audio use speed 2-${MAX_SPEED} or 0. Stops after ${seconds} s with the text so far (complete=false). Counts against daily audio seconds (get_thai_asr_config).`;

/** Seconds of a call that can go to streaming audio: the rest is setup, the final and the answer. */
function streamingBudgetSeconds(seconds: number): number {
  return Math.max(1, Math.floor(seconds * 0.8 - 3));
}

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const transcribeThaiInput = {
  audioPath: z.string().min(1).describe('Local path or https:// URL.'),
  speed: z.number().min(0).max(MAX_SPEED).default(1).describe('1 = real time, 0 = unpaced.'),
  vad: z.boolean().optional(),
  partialIntervalMs: z.number().int().min(20).max(1000).optional(),
};

// Terse (issue 14): the README's Tools section explains the fields; the rest passes as further properties.
const transcribeThaiOutput = z.looseObject({
  text: z.string(),
  segments: z.array(z.object({ start: z.number(), end: z.number(), text: z.string() })),
  complete: z.boolean(),
  incompleteReason: z.enum(['deadline', 'stalled', 'limit']).nullable(),
  coveredSeconds: z.number(),
  totalAudioSeconds: z.number(),
});

export const transcribeThaiTool = defineTool({
  name: 'transcribe_thai',
  title: 'Transcribe Thai speech',
  description: describeTool,
  inputSchema: transcribeThaiInput,
  outputSchema: transcribeThaiOutput,
  annotations: PLATFORM_WORK_ANNOTATIONS,
  handler: (deps: ToolDeps) => {
    const seconds = deps.toolDeadlineSeconds;
    return async (args, extra) => {
      const deadline = createToolDeadline(extra.signal, seconds);
      const inputs = resolveToolInputs(deps, deadline.signal);
      try {
        await deps.roots.ready();
        const reporter = createProgressReporter(extra);
        let audioSeconds = 0;
        // The recogniser streams, it takes no upload: a downloaded file is capped at the client's audio
        // download limit (512 MiB), and its length is checked like a local file's before anything is sent.
        const file = await inputs.resolve(args.audioPath, {
          field: 'audioPath',
          maxBytes: DEFAULT_DOWNLOAD_LIMITS.audio,
        });
        const result = await deps.platform.client.thaiAsr.transcribe({
          file,
          speed: args.speed,
          session: {
            ...(args.vad === undefined ? {} : { vad: args.vad }),
            ...(args.partialIntervalMs === undefined ? {} : { partial_interval_ms: args.partialIntervalMs }),
          },
          onEvent: (event) => {
            if (event.type === 'started') audioSeconds = 0;
          },
          onCaption: (text, event) => {
            const heardMs = typeof event.audio_ms === 'number' ? event.audio_ms : 0;
            audioSeconds = Math.max(audioSeconds, heardMs / 1000);
            void reporter.report(Math.min(99, Math.floor(audioSeconds * 10) / 10), text);
          },
          // The caller's cancellation as the signal; the deadline as `deadline`, so that the client ends
          // the session in time and returns what it has instead of reporting a cancellation.
          signal: extra.signal,
          deadline: deadline.at,
        });
        const segments = result.segments.map((segment) => ({
          start: segment.start,
          end: segment.end,
          text: segment.text,
        }));
        return {
          content: [
            {
              type: 'text',
              text: redactSecrets(
                describeResult(result, segments.length, args.speed, seconds),
                deps.platform.secrets,
              ),
            },
          ],
          structuredContent: {
            text: result.text,
            segments,
            audioSeconds: result.audioSeconds,
            totalAudioSeconds: result.totalAudioSeconds,
            coveredSeconds: result.coveredSeconds,
            complete: result.complete,
            incompleteReason: result.incompleteReason ?? null,
            skippedEvents: result.skippedEvents,
            sessionId: result.sessionId,
          },
        };
      } catch (error) {
        return toolErrorFor(inputs.explain(error), deps);
      } finally {
        deadline.dispose();
        await inputs.release();
      }
    };
  },
});

/** The text an agent reads: the transcript, or what there is of it and how to get the rest. */
function describeResult(
  result: TranscribeResult,
  segmentCount: number,
  speed: number,
  seconds: number,
): string {
  const skipped =
    result.skippedEvents > 0 ? ` ${result.skippedEvents} malformed recogniser event(s) were skipped.` : '';
  if (result.complete) {
    return result.text
      ? `${result.text}\n(${segmentCount} segment(s), ${result.audioSeconds.toFixed(1)} s of audio.${skipped})`
      : `No speech was recognised in ${result.audioSeconds.toFixed(1)} s of audio.${skipped}`;
  }
  const covered = result.coveredSeconds.toFixed(1);
  const total = result.totalAudioSeconds.toFixed(1);
  const heading =
    result.incompleteReason === 'stalled'
      ? `incomplete: the recogniser stopped answering after ${covered} s of audio (of ${total} s); the session was closed.`
      : result.incompleteReason === 'limit'
        ? `incomplete: the file's length could not be read beforehand, and streaming stopped after ${result.audioSeconds.toFixed(1)} s of audio, the most one call may stream (or the key has left today).`
        : `incomplete: the call's time ran out after ${covered} s of audio (of ${total} s).`;
  const body = result.text
    ? `${result.final ? 'Final text of that part' : "The recogniser's latest partial text (not final)"}:\n${result.text}`
    : 'Nothing was recognised in that part.';
  return `${heading}${skipped}\n${body}\nNext: ${nextStep(result, speed, seconds)}`;
}

function nextStep(result: TranscribeResult, speed: number, seconds: number): string {
  const again = 'A new call streams the file again from the start (its audio counts again).';
  if (result.incompleteReason === 'limit') {
    return `split the file into pieces shorter than ${Math.floor(result.audioSeconds)} s (or convert it to WAV, whose length is known beforehand) and transcribe each.`;
  }
  if (result.incompleteReason === 'stalled') {
    return `call transcribe_thai again to start a new session; if the recogniser stalls again, try later. ${again}`;
  }
  const budget = streamingBudgetSeconds(seconds);
  const needed = Math.max(Math.ceil(result.totalAudioSeconds / budget), Math.floor(speed) + 1, 2);
  if (speed === 0) {
    return `call transcribe_thai with a shorter file (pieces of about ${budget} s), since even unpaced streaming did not fit into ${seconds} s. ${again}`;
  }
  const faster = needed > MAX_SPEED ? 'speed=0 (unpaced)' : `speed=${needed}`;
  return `call transcribe_thai again with ${faster}, or with a shorter file (pieces of about ${budget} s at speed 1). ${again}`;
}
