/**
 * Recording containers the services accept (meeting and flashcards by extension, reading score by content),
 * with their MIME types and the magic bytes that identify them. Checking the bytes catches a misnamed file
 * before it is uploaded and paid for; what follows the bytes is checked by `validateRecordingContent`.
 */
import type { RecordingExtension } from '../constants/recording-extensions.js';
import { sniffVideoContainer } from './sniff-media-type.js';

export type RecordingContainer =
  | 'wav'
  | 'mp3'
  | 'mp4'
  | 'mov'
  | 'm4a'
  | 'm4v'
  | 'avi'
  | 'mkv'
  | 'webm'
  | 'mpeg'
  | 'ogg'
  | 'flac';

export const RECORDING_CONTAINERS: Readonly<Record<string, RecordingContainer>> = {
  '.wav': 'wav',
  '.mp3': 'mp3',
  '.mp4': 'mp4',
  '.mov': 'mov',
  '.m4a': 'm4a',
  '.avi': 'avi',
  '.mkv': 'mkv',
  '.webm': 'webm',
  '.m4v': 'm4v',
  '.mpeg': 'mpeg',
  '.mpg': 'mpeg',
  '.ogg': 'ogg',
  '.flac': 'flac',
} satisfies Record<RecordingExtension, RecordingContainer>;

export const RECORDING_CONTENT_TYPES: Readonly<Record<RecordingContainer, string>> = {
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  m4a: 'audio/mp4',
  avi: 'video/x-msvideo',
  mkv: 'video/x-matroska',
  webm: 'video/webm',
  m4v: 'video/x-m4v',
  mpeg: 'video/mpeg',
  ogg: 'audio/ogg',
  flac: 'audio/flac',
};

const SIGNATURE_NAMES: Readonly<Record<RecordingContainer, string>> = {
  wav: 'a RIFF/WAVE header',
  mp3: 'an ID3 tag or an MPEG audio frame',
  mp4: 'an ISO media "ftyp" box',
  m4a: 'an ISO media "ftyp" box',
  mov: 'a QuickTime atom (ftyp, moov, mdat, wide, free)',
  avi: 'a RIFF/AVI header',
  mkv: 'an EBML (Matroska) header',
  webm: 'an EBML (WebM) header',
  m4v: 'an ISO media "ftyp" box',
  mpeg: 'an MPEG program or transport stream header',
  ogg: 'an Ogg page ("OggS")',
  flac: 'a FLAC stream marker ("fLaC")',
};

export function describeSignature(container: RecordingContainer): string {
  return SIGNATURE_NAMES[container];
}

/** Bytes needed from the start of the file to recognise every container. */
export const SIGNATURE_BYTES = 16;

const ascii = (head: Uint8Array, start: number, end: number) =>
  Buffer.from(head.subarray(start, end)).toString('latin1');

/** Whether the first bytes of a file match the container its extension claims. */
export function matchesSignature(container: RecordingContainer, head: Uint8Array): boolean {
  switch (container) {
    case 'wav':
      return ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'WAVE';
    case 'avi':
      return ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'AVI ';
    case 'mp3':
      return ascii(head, 0, 3) === 'ID3' || (head[0] === 0xff && ((head[1] ?? 0) & 0xe0) === 0xe0);
    case 'mp4':
    case 'm4a':
    case 'm4v':
      return ascii(head, 4, 8) === 'ftyp';
    case 'mov':
      return ['ftyp', 'moov', 'mdat', 'wide', 'free', 'skip', 'pnot'].includes(ascii(head, 4, 8));
    case 'mpeg':
      return sniffVideoContainer(head) === 'mpeg';
    case 'mkv':
    case 'webm':
      return head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3;
    case 'ogg':
      return ascii(head, 0, 4) === 'OggS';
    case 'flac':
      return ascii(head, 0, 4) === 'fLaC';
  }
}

/** Audio containers recognised by content alone, in the order they are tried (MP3's frame sync is loosest). */
const AUDIO_CONTAINERS: readonly RecordingContainer[] = ['wav', 'flac', 'ogg', 'm4a', 'webm', 'mp3'];

/** The audio container a file's first bytes show, whatever its name says (M4A for any ISO media file). */
export function sniffAudioContainer(head: Uint8Array): RecordingContainer | undefined {
  return AUDIO_CONTAINERS.find((container) => matchesSignature(container, head));
}
