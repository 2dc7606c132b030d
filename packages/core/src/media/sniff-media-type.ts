/**
 * Recognises media by signature (magic bytes), never by the name or the declared type, because both are
 * whatever the sender says.
 */

export type ImageType = 'image/png' | 'image/jpeg' | 'image/webp';

export function sniffImageType(bytes: Uint8Array): ImageType | undefined {
  if (bytes.length >= 8 && Buffer.from(bytes.subarray(0, 8)).equals(Buffer.from('89504e470d0a1a0a', 'hex'))) {
    return 'image/png';
  }
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (
    bytes.length >= 12 &&
    Buffer.from(bytes.subarray(0, 4)).toString('latin1') === 'RIFF' &&
    Buffer.from(bytes.subarray(8, 12)).toString('latin1') === 'WEBP'
  ) {
    return 'image/webp';
  }
  return undefined;
}

export function isWav(bytes: Uint8Array): boolean {
  return (
    bytes.length >= 12 &&
    Buffer.from(bytes.subarray(0, 4)).toString('latin1') === 'RIFF' &&
    Buffer.from(bytes.subarray(8, 12)).toString('latin1') === 'WAVE'
  );
}

export type VideoContainer = 'mp4' | 'matroska' | 'avi' | 'mpeg';

/** The container of a video file's first bytes (MP4/MOV/M4V, MKV/WEBM, AVI, MPEG program/transport). */
export function sniffVideoContainer(bytes: Uint8Array): VideoContainer | undefined {
  const head = Buffer.from(bytes.subarray(0, 16));
  if (head.length >= 8 && ['ftyp', 'moov', 'mdat', 'wide', 'free'].includes(head.toString('latin1', 4, 8))) {
    return 'mp4';
  }
  if (head.length >= 4 && head.readUInt32BE(0) === 0x1a45dfa3) return 'matroska';
  if (
    head.length >= 12 &&
    head.toString('latin1', 0, 4) === 'RIFF' &&
    head.toString('latin1', 8, 12) === 'AVI '
  ) {
    return 'avi';
  }
  if (head.length >= 4 && (head.readUInt32BE(0) === 0x000001ba || head.readUInt32BE(0) === 0x000001b3)) {
    return 'mpeg';
  }
  if (head.length >= 1 && head[0] === 0x47 && bytes.length >= 189 && bytes[188] === 0x47) return 'mpeg';
  return undefined;
}

export const VIDEO_CONTAINER_TYPES: Readonly<Record<VideoContainer, string>> = {
  mp4: 'video/mp4',
  matroska: 'video/x-matroska',
  avi: 'video/x-msvideo',
  mpeg: 'video/mpeg',
};

export function isMp3(bytes: Uint8Array): boolean {
  return (
    (bytes.length >= 3 && Buffer.from(bytes.subarray(0, 3)).toString('latin1') === 'ID3') ||
    (bytes.length >= 2 && bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe0) === 0xe0)
  );
}

export type MediaKind = 'image' | 'audio' | 'video';

/** The MIME type of a file's first bytes when they are media of the given kind (audio: WAV or MP3). */
export function sniffMediaType(kind: MediaKind, bytes: Uint8Array): string | undefined {
  if (kind === 'image') return sniffImageType(bytes);
  if (kind === 'audio') return isWav(bytes) ? 'audio/wav' : isMp3(bytes) ? 'audio/mpeg' : undefined;
  const container = sniffVideoContainer(bytes);
  return container === undefined ? undefined : VIDEO_CONTAINER_TYPES[container];
}
