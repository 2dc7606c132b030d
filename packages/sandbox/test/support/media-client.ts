/** HTTP helpers for the media service tests: real requests with `x-api-key` to a sandbox on loopback. */
import type { Sandbox } from '../../src/index.js';

export interface MediaCallOptions {
  key?: string | undefined;
  json?: unknown;
  form?: FormData;
  headers?: Record<string, string>;
}

export interface MediaCallResult {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: assertions read JSON bodies of every route's shape
  body: any;
  bytes: Buffer;
}

export function createMediaClient(sandbox: Sandbox) {
  async function call(
    method: string,
    route: string,
    options: MediaCallOptions = {},
  ): Promise<MediaCallResult> {
    const headers: Record<string, string> = { ...options.headers };
    const key = 'key' in options ? options.key : sandbox.apiKey;
    if (key !== undefined) headers['x-api-key'] = key;
    let body: string | FormData | undefined;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.form) {
      body = options.form;
    }
    const url = /^https?:/.test(route) ? route : `${sandbox.url}${route}`;
    const response = await fetch(url, { method, headers, ...(body !== undefined ? { body } : {}) });
    const bytes = Buffer.from(await response.arrayBuffer());
    let parsed: unknown = bytes.toString('utf8');
    try {
      parsed = JSON.parse(parsed as string);
    } catch {
      // Not JSON (media bytes or text).
    }
    return { status: response.status, headers: response.headers, body: parsed, bytes };
  }

  /** Moves the sandbox clock far enough for any short job to finish. */
  const finish = () => sandbox.control.advance(60 * 60 * 1000);

  return { call, finish };
}

/** Reads the duration and format of a PCM WAV (checks it is a real, playable file). */
export function readWav(bytes: Buffer): {
  sampleRate: number;
  channels: number;
  bits: number;
  seconds: number;
  peak: number;
} {
  if (bytes.toString('latin1', 0, 4) !== 'RIFF' || bytes.toString('latin1', 8, 12) !== 'WAVE') {
    throw new Error('not a WAV file');
  }
  const channels = bytes.readUInt16LE(22);
  const sampleRate = bytes.readUInt32LE(24);
  const bits = bytes.readUInt16LE(34);
  if (bytes.toString('latin1', 36, 40) !== 'data') throw new Error('no data chunk at 36');
  const size = bytes.readUInt32LE(40);
  if (44 + size !== bytes.length) throw new Error('data chunk size does not match the file');
  let peak = 0;
  for (let offset = 44; offset + 1 < bytes.length; offset += 2)
    peak = Math.max(peak, Math.abs(bytes.readInt16LE(offset)));
  return { sampleRate, channels, bits, seconds: size / (sampleRate * channels * (bits / 8)), peak };
}
