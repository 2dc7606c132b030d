/**
 * Audio files to PCM16LE mono at a given rate: WAV decoded here, other formats (MP3, M4A, ...) through
 * ffmpeg when it is installed, with an error that says how to install it when it is not.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { decodeWavToPcm16 } from '../audio/index.js';
import { ValidationError } from '../errors/index.js';

export async function decodeAudioFile(
  file: string,
  sampleRate: number,
  signal?: AbortSignal,
): Promise<Int16Array> {
  const data = await readFile(file);
  if (
    data.length >= 12 &&
    data.toString('ascii', 0, 4) === 'RIFF' &&
    data.toString('ascii', 8, 12) === 'WAVE'
  ) {
    return decodeWavToPcm16(data, sampleRate);
  }
  return ffmpegToPcm16(file, sampleRate, signal);
}

function ffmpegToPcm16(file: string, sampleRate: number, signal?: AbortSignal): Promise<Int16Array> {
  return new Promise((resolve, reject) => {
    // Arguments as an array, never a shell string: the path cannot inject anything.
    const child = spawn(
      'ffmpeg',
      ['-v', 'error', '-nostdin', '-i', file, '-f', 's16le', '-ac', '1', '-ar', String(sampleRate), 'pipe:1'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        ...(signal ? { signal } : {}),
      },
    );
    const chunks: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-2000);
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') {
        reject(
          new ValidationError(
            `${file} is not a WAV file, and decoding other formats needs ffmpeg, which is not installed. Install it ` +
              '(Debian/Ubuntu: apt install ffmpeg; macOS: brew install ffmpeg; Windows: winget install ffmpeg) or convert the file to WAV.',
            [{ path: 'audio', message: 'ffmpeg not found' }],
          ),
        );
      } else reject(error);
    });
    child.on('close', (code) => {
      if (code !== 0) {
        reject(
          new ValidationError(`ffmpeg could not decode ${file}: ${stderr.trim() || `exit code ${code}`}`, [
            { path: 'audio', message: 'undecodable' },
          ]),
        );
        return;
      }
      const bytes = Buffer.concat(chunks);
      resolve(
        new Int16Array(
          bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length - (bytes.length % 2)),
        ),
      );
    });
  });
}
