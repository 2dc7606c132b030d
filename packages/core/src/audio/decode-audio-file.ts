/**
 * Audio files to PCM16LE mono at a given rate: WAV is decoded here; other formats (MP3, M4A, OGG, ...)
 * go through ffmpeg when it is on PATH, spawned with an argument array (no shell), with an error that
 * says how to install it when it is not.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { ValidationError } from '../errors/index.js';
import { decodeWavToPcm16 } from './decode-wav-to-pcm16.js';

export const FFMPEG_INSTALL_HINT =
  'Install ffmpeg (Debian/Ubuntu: apt install ffmpeg; macOS: brew install ffmpeg; Windows: winget install ffmpeg) or convert the file to WAV.';

export interface DecodeAudioFileOptions {
  /** Output rate in Hz (default 16000). */
  sampleRate?: number;
  signal?: AbortSignal;
  /** The ffmpeg executable (default `ffmpeg`, looked up on PATH). */
  ffmpegPath?: string;
}

export async function decodeAudioFile(
  file: string,
  options: DecodeAudioFileOptions = {},
): Promise<Int16Array> {
  const sampleRate = options.sampleRate ?? 16_000;
  options.signal?.throwIfAborted();
  const data = await readFile(file, options.signal ? { signal: options.signal } : {});
  if (
    data.length >= 12 &&
    data.toString('ascii', 0, 4) === 'RIFF' &&
    data.toString('ascii', 8, 12) === 'WAVE'
  ) {
    return decodeWavToPcm16(data, sampleRate);
  }
  return ffmpegToPcm16(file, { ...options, sampleRate });
}

function ffmpegToPcm16(
  file: string,
  options: DecodeAudioFileOptions & { sampleRate: number },
): Promise<Int16Array> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      options.ffmpegPath ?? 'ffmpeg',
      [
        '-v',
        'error',
        '-nostdin',
        '-i',
        file,
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
      { stdio: ['ignore', 'pipe', 'pipe'], ...(options.signal ? { signal: options.signal } : {}) },
    );
    const chunks: Buffer[] = [];
    let stderr = '';
    let failed = false;
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      // Only the tail matters for the error message; a chatty ffmpeg must not grow memory.
      stderr = (stderr + chunk.toString('utf8')).slice(-2000);
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      failed = true;
      if (error.name === 'AbortError') reject(options.signal?.reason ?? error);
      else if (error.code === 'ENOENT') {
        reject(
          new ValidationError(
            `${file} is not a WAV file, and decoding other formats needs ffmpeg, which was not found. ${FFMPEG_INSTALL_HINT}`,
            [{ path: 'audio', message: 'ffmpeg not found' }],
          ),
        );
      } else reject(error);
    });
    child.on('close', (code) => {
      if (failed) return;
      if (code !== 0) {
        reject(
          new ValidationError(`ffmpeg could not decode ${file}: ${stderr.trim() || `exit code ${code}`}`, [
            { path: 'audio', message: 'undecodable' },
          ]),
        );
        return;
      }
      const bytes = Buffer.concat(chunks);
      const samples = new Int16Array(Math.floor(bytes.length / 2));
      for (let index = 0; index < samples.length; index++) samples[index] = bytes.readInt16LE(index * 2);
      resolve(samples);
    });
  });
}
