/**
 * Formats other than WAV (MP3, M4A, OGG, ...) decoded by ffmpeg to PCM16LE mono at a given rate, yielded
 * as ffmpeg writes them: its output is read as the consumer asks for it (a paced consumer makes ffmpeg
 * wait on the pipe), never gathered whole.
 *
 * ffmpeg is spawned with an argument array (no shell). On Linux it reads the descriptor that was opened
 * and checked (passed as fd 3 and named `/dev/fd/3`), not the path again, so a file swapped after the
 * check is not what gets decoded; elsewhere it is given the checked real path.
 */
import type { Readable } from 'node:stream';
import { ValidationError } from '../errors/polymodal-error.js';

export const FFMPEG_INSTALL_HINT =
  'Install ffmpeg (Debian/Ubuntu: apt install ffmpeg; macOS: brew install ffmpeg; Windows: winget install ffmpeg) or convert the file to WAV.';

/** An opened, checked input file: its descriptor and its real path (for messages, and the fallback). */
export interface FfmpegInput {
  fd: number;
  path: string;
}

export interface DecodeWithFfmpegOptions {
  /** Output rate in Hz. */
  sampleRate: number;
  signal?: AbortSignal;
  /** The ffmpeg executable (default `ffmpeg`, looked up on PATH). */
  ffmpegPath?: string;
}

/** How ffmpeg and ffprobe are told to read `input`: the argument after `-i` and extra stdio entries. */
export function ffmpegSource(input: FfmpegInput): { argument: string; stdio: number[] } {
  // /dev/fd/N re-opens the same open file on Linux (its own offset, seekable); on macOS it would share the
  // offset with our descriptor, and Windows has no such path.
  return process.platform === 'linux'
    ? { argument: '/dev/fd/3', stdio: [input.fd] }
    : { argument: input.path, stdio: [] };
}

export function ffmpegMissing(file: string): ValidationError {
  return new ValidationError(
    `${file} is not a WAV file, and decoding other formats needs ffmpeg, which was not found. ${FFMPEG_INSTALL_HINT}`,
    [{ path: 'audio', message: 'ffmpeg not found' }],
  );
}

export async function* decodeWithFfmpeg(
  input: FfmpegInput,
  options: DecodeWithFfmpegOptions,
): AsyncGenerator<Int16Array, void, undefined> {
  options.signal?.throwIfAborted();
  const source = ffmpegSource(input);
  // Loaded when a file needs ffmpeg: a server that never decodes one does not load child_process at start.
  const { spawn } = await import('node:child_process');
  const child = spawn(
    options.ffmpegPath ?? 'ffmpeg',
    [
      '-v',
      'error',
      '-nostdin',
      '-i',
      source.argument,
      '-f',
      's16le',
      '-acodec',
      'pcm_s16le',
      '-ac',
      '1',
      '-ar',
      String(options.sampleRate),
      'pipe:1',
    ],
    { stdio: ['ignore', 'pipe', 'pipe', ...source.stdio] },
  );
  // Both pipes exist: stdio asks for them (the extra descriptor entry only loses the typing).
  const stdout = child.stdout as Readable;
  const stderrPipe = child.stderr as Readable;
  let stderr = '';
  stderrPipe.on('data', (chunk: Buffer) => {
    // Only the tail matters for the error message; a chatty ffmpeg must not grow memory.
    stderr = (stderr + chunk.toString('utf8')).slice(-2000);
  });
  const exit = new Promise<{ code: number | null; error?: NodeJS.ErrnoException }>((resolve) => {
    child.once('error', (error: NodeJS.ErrnoException) => resolve({ code: null, error }));
    child.once('close', (code) => resolve({ code }));
  });
  const stop = () => child.kill('SIGKILL');
  options.signal?.addEventListener('abort', stop, { once: true });
  try {
    let carry: Buffer | undefined;
    for await (const chunk of stdout as AsyncIterable<Buffer>) {
      options.signal?.throwIfAborted();
      const bytes = carry ? Buffer.concat([carry, chunk]) : chunk;
      const even = bytes.length - (bytes.length % 2);
      // A sample split across two reads waits for its second byte.
      carry = even < bytes.length ? Buffer.from(bytes.subarray(even)) : undefined;
      if (even === 0) continue;
      const samples = new Int16Array(even / 2);
      for (let index = 0; index < samples.length; index++) samples[index] = bytes.readInt16LE(index * 2);
      yield samples;
    }
    const outcome = await exit;
    options.signal?.throwIfAborted();
    if (outcome.error) throw outcome.error.code === 'ENOENT' ? ffmpegMissing(input.path) : outcome.error;
    if (outcome.code !== 0) {
      throw new ValidationError(
        `ffmpeg could not decode ${input.path}: ${stderr.trim() || `exit code ${outcome.code}`}`,
        [{ path: 'audio', message: 'undecodable' }],
      );
    }
  } finally {
    options.signal?.removeEventListener('abort', stop);
    // The consumer stopped early (deadline, error): ffmpeg must not linger on a full pipe.
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
