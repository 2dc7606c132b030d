/**
 * Asks ffprobe (installed with ffmpeg) what a non-WAV file holds before anything is decoded or sent: its
 * duration and whether it has an audio stream. A file ffprobe cannot read is refused with its words.
 */
import type { Readable } from 'node:stream';
import { ValidationError } from '../errors/polymodal-error.js';
import { type FfmpegInput, ffmpegSource } from './decode-with-ffmpeg.js';

/** ffprobe's answer is a few hundred bytes; more means something else is talking. */
const MAX_OUTPUT_BYTES = 1024 * 1024;

export interface FfprobeResult {
  /** Seconds, when the container states it (undefined for "N/A"). */
  durationSeconds: number | undefined;
  audioStreams: number;
}

export async function probeWithFfprobe(
  input: FfmpegInput,
  options: { ffprobePath: string; signal?: AbortSignal },
): Promise<FfprobeResult> {
  const source = ffmpegSource(input);
  // Loaded when a file needs ffprobe, not at every start.
  const { spawn } = await import('node:child_process');
  return new Promise((resolve, reject) => {
    const child = spawn(
      options.ffprobePath,
      [
        '-v',
        'error',
        '-select_streams',
        'a',
        '-show_entries',
        'stream=codec_type:format=duration',
        '-of',
        'json',
        source.argument,
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe', ...source.stdio],
        ...(options.signal ? { signal: options.signal } : {}),
      },
    );
    const output: Buffer[] = [];
    let outputBytes = 0;
    let stderr = '';
    (child.stdout as Readable).on('data', (chunk: Buffer) => {
      outputBytes += chunk.length;
      if (outputBytes > MAX_OUTPUT_BYTES) child.kill('SIGKILL');
      else output.push(chunk);
    });
    (child.stderr as Readable).on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-2000);
    });
    let failed = false;
    child.on('error', (error: NodeJS.ErrnoException) => {
      failed = true;
      reject(error.name === 'AbortError' ? (options.signal?.reason ?? error) : error);
    });
    child.on('close', (code) => {
      if (failed) return;
      if (code !== 0 || outputBytes > MAX_OUTPUT_BYTES) {
        reject(
          new ValidationError(
            `ffmpeg could not read ${input.path}: ${stderr.trim() || `ffprobe exit code ${code}`}`,
            [{ path: 'audio', message: 'unreadable' }],
          ),
        );
        return;
      }
      try {
        const parsed = JSON.parse(Buffer.concat(output).toString('utf8') || '{}') as {
          streams?: unknown[];
          format?: { duration?: unknown };
        };
        const duration = Number(parsed.format?.duration);
        resolve({
          durationSeconds: Number.isFinite(duration) && duration >= 0 ? duration : undefined,
          audioStreams: Array.isArray(parsed.streams) ? parsed.streams.length : 0,
        });
      } catch {
        reject(
          new ValidationError(`ffprobe gave no readable answer about ${input.path}.`, [
            { path: 'audio', message: 'unreadable' },
          ]),
        );
      }
    });
  });
}
