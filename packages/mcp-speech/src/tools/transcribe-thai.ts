/**
 * transcribe_thai: streams a local audio file to the platform's streaming Thai recogniser and returns the
 * final text and segments; captions (partials) go out as progress notifications while it runs.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createProgressReporter, PLATFORM_WORK_ANNOTATIONS } from '@polymodal/mcp-common';
import { z } from 'zod';
import { type SpeechToolDeps, speechToolError } from './speech-tool-deps.js';

const DESCRIPTION = `Transcribes Thai speech from a local audio file (WAV of any rate, depth or channels; MP3, M4A and other formats when ffmpeg is installed) with the platform's streaming recogniser, and returns the final text with timed segments. Audio is streamed at real-time pace by default (speed 1), so a 30-second file takes about 30 seconds; live captions arrive as progress notifications. For files longer than about 40 seconds use speed 2–10 (or 0 for as fast as possible) so the call ends before the host's time limit. Counts against the key's daily audio seconds (get_thai_asr_config shows the limits). The file must be inside an allowed directory (POLYMODAL_ALLOWED_DIRS or the client's roots).`;

export function registerTranscribeThai(server: McpServer, deps: SpeechToolDeps): void {
  server.registerTool(
    'transcribe_thai',
    {
      title: 'Transcribe Thai speech',
      description: DESCRIPTION,
      inputSchema: {
        audioPath: z.string().min(1).describe('Local path of the audio file.'),
        speed: z
          .number()
          .min(0)
          .max(20)
          .default(1)
          .describe('Pacing: 1 = real time, 4 = four times faster, 0 = unpaced.'),
        vad: z.boolean().optional().describe('Voice activity detection (platform default: on).'),
        partialIntervalMs: z
          .number()
          .int()
          .min(20)
          .max(1000)
          .optional()
          .describe('How often captions update (20–1000 ms).'),
      },
      outputSchema: {
        text: z.string().describe('The final transcript.'),
        segments: z.array(z.object({ start: z.number(), end: z.number(), text: z.string() })),
        audioSeconds: z.number(),
        sessionId: z.string(),
      },
      annotations: {
        title: 'Transcribe Thai speech',
        ...PLATFORM_WORK_ANNOTATIONS,
      },
    },
    async (args, extra) => {
      try {
        await deps.roots.ready();
        const reporter = createProgressReporter(extra);
        let audioSeconds = 0;
        const result = await deps.context.polymodal.thaiAsr.transcribe({
          file: args.audioPath,
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
          signal: extra.signal,
        });
        const segments = result.segments.map((segment) => ({
          start: segment.start,
          end: segment.end,
          text: segment.text,
        }));
        const text = result.text
          ? `${result.text}\n(${segments.length} segment(s), ${result.audioSeconds.toFixed(1)} s of audio)`
          : `No speech was recognised in ${result.audioSeconds.toFixed(1)} s of audio.`;
        return {
          content: [{ type: 'text', text }],
          structuredContent: {
            text: result.text,
            segments,
            audioSeconds: result.audioSeconds,
            sessionId: result.sessionId,
          },
        };
      } catch (error) {
        return speechToolError(error, deps);
      }
    },
  );
}
