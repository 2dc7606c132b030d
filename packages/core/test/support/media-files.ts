/**
 * Small media files for tests, built byte by byte: whole ones (that the structure checks accept) and the
 * broken ones an agent or a careless copy produces (a header followed by junk, a file cut short).
 */
import { crc32, deflateSync } from 'node:zlib';

function box(type: string, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + body.length);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, body]);
}

/** An ISO media `ftyp` box (what the magic-byte check looks for). */
export function ftyp(): Buffer {
  return box('ftyp', Buffer.from('isom\0\0\x02\0isomiso2', 'latin1'));
}

/** An MP4 with a movie header of `seconds` and no tracks: `ftyp`, `moov` → `mvhd`, an empty `mdat`. */
export function mp4(seconds: number): Buffer {
  const header = Buffer.alloc(100);
  header.writeUInt32BE(1000, 12);
  header.writeUInt32BE(Math.round(seconds * 1000), 16);
  header.writeUInt32BE(0x00010000, 20);
  header.writeUInt16BE(0x0100, 24);
  header.writeUInt32BE(0x00010000, 36);
  header.writeUInt32BE(0x00010000, 52);
  header.writeUInt32BE(0x40000000, 68);
  header.writeUInt32BE(2, 96);
  return Buffer.concat([ftyp(), box('moov', box('mvhd', header)), box('mdat', Buffer.alloc(64))]);
}

/** MPEG-1 Layer III frames (128 kbit/s, 44.1 kHz, 417 bytes each) of silence: about 26 ms per frame. */
export function mp3(frames: number): Buffer {
  const frame = Buffer.alloc(417);
  frame.set([0xff, 0xfb, 0x90, 0x64]);
  return Buffer.concat(Array.from({ length: frames }, () => frame));
}

function ebmlSize(length: number): Buffer {
  if (length < 0x7f) return Buffer.from([0x80 | length]);
  const bytes = Buffer.alloc(2);
  bytes.writeUInt16BE(0x4000 | length);
  return bytes;
}

function element(id: string, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from(id, 'hex'), ebmlSize(body.length), body]);
}

/** A Matroska file: EBML header (doc type "matroska") and a segment whose Info gives `seconds`. */
export function mkv(seconds: number): Buffer {
  const byte = (value: number) => Buffer.from([value]);
  const duration = Buffer.alloc(8);
  duration.writeDoubleBE(seconds * 1000);
  const header = element(
    '1a45dfa3',
    Buffer.concat([
      element('4286', byte(1)),
      element('42f7', byte(1)),
      element('42f2', byte(4)),
      element('42f3', byte(8)),
      element('4282', Buffer.from('matroska')),
      element('4287', byte(4)),
      element('4285', byte(2)),
    ]),
  );
  const info = element(
    '1549a966',
    Buffer.concat([element('2ad7b1', Buffer.from([0x0f, 0x42, 0x40])), element('4489', duration)]),
  );
  return Buffer.concat([header, element('18538067', info)]);
}

function riffChunk(id: string, body: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.write(id, 0, 'latin1');
  header.writeUInt32LE(body.length, 4);
  return Buffer.concat([header, body, body.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}

function riffList(type: string, ...chunks: Buffer[]): Buffer {
  return riffChunk('LIST', Buffer.concat([Buffer.from(type, 'latin1'), ...chunks]));
}

/** An AVI skeleton: RIFF `AVI `, the `hdrl` list with a main header, an empty `movi` list. */
export function avi(): Buffer {
  const body = Buffer.concat([
    Buffer.from('AVI ', 'latin1'),
    riffList('hdrl', riffChunk('avih', Buffer.alloc(56))),
    riffList('movi'),
  ]);
  const header = Buffer.alloc(8);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(body.length, 4);
  return Buffer.concat([header, body]);
}

/** `RIFF…WAVE` with a size that matches, followed by junk: passes a magic-byte check and nothing else. */
export function riffWaveJunk(bytes = 4096): Buffer {
  const junk = Buffer.from(Array.from({ length: bytes }, (_, index) => (index * 7919 + 13) % 256));
  const header = Buffer.alloc(12);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(4 + junk.length, 4);
  header.write('WAVE', 8, 'latin1');
  return Buffer.concat([header, junk]);
}

/** `ftyp` followed by junk: what a magic-byte check takes for an MP4. */
export function ftypJunk(bytes = 4096): Buffer {
  return Buffer.concat([ftyp(), Buffer.from('junk '.repeat(Math.ceil(bytes / 5)).slice(0, bytes), 'latin1')]);
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A real, decodable RGB PNG of `width` × `height` (grey). */
export function png(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.alloc((width * 3 + 1) * height, 0x80);
  for (let row = 0; row < height; row += 1) rows[row * (width * 3 + 1)] = 0;
  return Buffer.concat([
    Buffer.from('89504e470d0a1a0a', 'hex'),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(rows)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * A structurally whole baseline JPEG of `width` × `height`: SOI, a quantisation table, the frame header,
 * a Huffman table, one scan and EOI (the scan's bytes are filler: only the structure is checked).
 */
export function jpeg(width: number, height: number): Buffer {
  const segment = (marker: number, body: Buffer) => {
    const head = Buffer.from([0xff, marker, 0, 0]);
    head.writeUInt16BE(body.length + 2, 2);
    return Buffer.concat([head, body]);
  };
  const frame = Buffer.alloc(15);
  frame[0] = 8;
  frame.writeUInt16BE(height, 1);
  frame.writeUInt16BE(width, 3);
  frame[5] = 3;
  frame.set([1, 0x22, 0, 2, 0x11, 0, 3, 0x11, 0], 6);
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    segment(0xdb, Buffer.concat([Buffer.from([0]), Buffer.alloc(64, 1)])),
    segment(0xc0, frame),
    segment(0xc4, Buffer.concat([Buffer.from([0]), Buffer.alloc(16), Buffer.alloc(0)])),
    segment(0xda, Buffer.from([3, 1, 0, 2, 0x11, 3, 0x11, 0, 63, 0])),
    Buffer.from([0x12, 0x34, 0xff, 0x00, 0x56, 0xff, 0xd0, 0x78]),
    Buffer.from([0xff, 0xd9]),
  ]);
}
