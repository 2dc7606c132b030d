/**
 * Decodes enough of a PNG, JPEG or WebP to know it is a whole image and how large it is, without an image
 * library: a truncated or damaged file passes a magic-byte check, is sent inline, and a paid video job is
 * started on it. PNG: the IHDR chunk and the CRC of every critical chunk, through to IEND. JPEG: the
 * segments up to a frame header (SOF) with its dimensions, the scans, and the end-of-image marker. WebP: the
 * RIFF size against the file size and the VP8/VP8L/VP8X header with the canvas size.
 */
import { nodeZlib } from '../util/builtins.js';
import { type ImageType, sniffImageType } from './sniff-media-type.js';

export interface ImageHeader {
  type: ImageType;
  width: number;
  height: number;
}

/** What is wrong, worded to follow the file name ("… is cut short: …"). */
export interface ImageProblem {
  problem: string;
}

/**
 * Largest width or height accepted. The spec gives only the file limit (25 MB) and the formats; this bound
 * is ours: WebP cannot go past 16 383 px, a video model scales any input far below it, and decoding a side
 * of 16 384 px square already takes 1 GiB, so a larger image is a mistake or a decompression bomb.
 */
export const IMAGE_MAX_SIDE_PIXELS = 16_384;

/** Bit depths PNG allows per colour type (PNG specification, table 11.1). */
const PNG_BIT_DEPTHS: Readonly<Record<number, readonly number[]>> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16],
};

export function decodeImageHeader(bytes: Uint8Array): ImageHeader | ImageProblem {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const type = sniffImageType(data);
  let decoded: ImageHeader | ImageProblem;
  switch (type) {
    case 'image/png':
      decoded = decodePng(data);
      break;
    case 'image/jpeg':
      decoded = decodeJpeg(data);
      break;
    case 'image/webp':
      decoded = decodeWebp(data);
      break;
    default:
      return { problem: 'is not a PNG, JPEG or WebP image' };
  }
  if ('problem' in decoded) return decoded;
  if (decoded.width < 1 || decoded.height < 1) {
    return { problem: `is damaged: its header gives a size of ${decoded.width}×${decoded.height} pixels` };
  }
  if (decoded.width > IMAGE_MAX_SIDE_PIXELS || decoded.height > IMAGE_MAX_SIDE_PIXELS) {
    return {
      problem: `is ${decoded.width}×${decoded.height} pixels; sides over ${IMAGE_MAX_SIDE_PIXELS} px are refused`,
    };
  }
  return decoded;
}

function decodePng(data: Buffer): ImageHeader | ImageProblem {
  let offset = 8;
  let header: ImageHeader | undefined;
  let palette = false;
  let imageData = false;
  while (offset + 12 <= data.length) {
    const length = data.readUInt32BE(offset);
    const name = data.toString('latin1', offset + 4, offset + 8);
    if (length > 0x7fffffff || !/^[A-Za-z]{4}$/.test(name)) {
      return { problem: `is damaged: no valid PNG chunk starts at byte ${offset}` };
    }
    const end = offset + 12 + length;
    if (end > data.length) {
      return { problem: `is cut short: its "${name}" chunk needs ${length} bytes but the file ends first` };
    }
    const critical = name.charCodeAt(0) < 0x61;
    // Decoders stop at a bad CRC on a critical chunk (and skip ancillary ones), so that is what is checked.
    if (
      critical &&
      nodeZlib().crc32(data.subarray(offset + 4, offset + 8 + length)) !== data.readUInt32BE(end - 4)
    ) {
      return { problem: `is damaged: the checksum of its "${name}" chunk does not match` };
    }
    if (header === undefined) {
      if (name !== 'IHDR' || length !== 13) {
        return { problem: 'is damaged: it does not begin with an IHDR chunk' };
      }
      const bitDepth = data[offset + 16] ?? 0;
      const colourType = data[offset + 17] ?? 0;
      if (!PNG_BIT_DEPTHS[colourType]?.includes(bitDepth)) {
        return { problem: `is damaged: colour type ${colourType} with ${bitDepth}-bit samples is not PNG` };
      }
      header = {
        type: 'image/png',
        width: data.readUInt32BE(offset + 8),
        height: data.readUInt32BE(offset + 12),
      };
      palette = colourType === 3;
    } else if (name === 'PLTE') {
      palette = false;
    } else if (name === 'IDAT') {
      if (palette) return { problem: 'is damaged: its palette (PLTE) is missing' };
      imageData = true;
    } else if (name === 'IEND') {
      if (!imageData) return { problem: 'has no image data (no IDAT chunk before IEND)' };
      return header;
    }
    offset = end;
  }
  return { problem: 'is cut short: it ends before its IEND chunk' };
}

/** SOF markers: C0–CF except DHT (C4), JPG (C8) and DAC (CC). */
function isFrameMarker(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

function decodeJpeg(data: Buffer): ImageHeader | ImageProblem {
  let offset = 2;
  let header: ImageHeader | undefined;
  let scanned = false;
  while (offset < data.length) {
    if (data[offset] !== 0xff) {
      return { problem: `is damaged: no JPEG marker at byte ${offset}` };
    }
    // Any number of 0xFF fill bytes may precede a marker.
    while (data[offset] === 0xff && offset < data.length) offset += 1;
    if (offset >= data.length) break;
    const marker = data[offset] as number;
    offset += 1;
    if (marker === 0xd9) {
      if (!header) return { problem: 'is damaged: it has no frame header (SOF)' };
      if (!scanned) return { problem: 'has no image data (no scan before the end-of-image marker)' };
      return header;
    }
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) continue;
    if (offset + 2 > data.length) break;
    const length = data.readUInt16BE(offset);
    if (length < 2 || offset + length > data.length) {
      return { problem: `is cut short: its segment at byte ${offset - 2} runs past the end of the file` };
    }
    if (isFrameMarker(marker)) {
      if (length < 8) return { problem: 'is damaged: its frame header (SOF) is too short' };
      header = {
        type: 'image/jpeg',
        height: data.readUInt16BE(offset + 3),
        width: data.readUInt16BE(offset + 5),
      };
    }
    offset += length;
    if (marker === 0xda) {
      if (!header) return { problem: 'is damaged: a scan comes before its frame header (SOF)' };
      scanned = true;
      // Entropy-coded data: 0xFF is followed by 0x00 (a stuffed byte) or a restart marker inside it; any
      // other byte after 0xFF is the next marker.
      while (offset + 1 < data.length) {
        if (data[offset] === 0xff) {
          const next = data[offset + 1] as number;
          if (next !== 0x00 && !(next >= 0xd0 && next <= 0xd7) && next !== 0xff) break;
        }
        offset += 1;
      }
      if (offset + 1 >= data.length) break;
    }
  }
  return { problem: 'is cut short: it ends before its end-of-image marker' };
}

function decodeWebp(data: Buffer): ImageHeader | ImageProblem {
  const declared = data.readUInt32LE(4) + 8;
  if (declared > data.length + 1) {
    return {
      problem: `is cut short: its RIFF header announces ${declared} bytes but the file has ${data.length}`,
    };
  }
  if (declared < data.length - 1) {
    return {
      problem: `is damaged: its RIFF header announces ${declared} bytes but the file has ${data.length}`,
    };
  }
  if (data.length < 20) return { problem: 'is cut short: it ends inside its first chunk' };
  const name = data.toString('latin1', 12, 16);
  const size = data.readUInt32LE(16);
  const body = 20;
  if (body + size > data.length) {
    return { problem: `is cut short: its "${name}" chunk runs past the end of the file` };
  }
  // The bytes each image header needs: a chunk shorter than that cannot describe an image.
  const needed: Readonly<Record<string, number>> = { 'VP8 ': 10, VP8L: 5, VP8X: 10 };
  if (size < (needed[name] ?? 0)) return { problem: `is damaged: its "${name}" chunk is too short` };
  switch (name) {
    case 'VP8 ':
      if (data[body + 3] !== 0x9d || data[body + 4] !== 0x01 || data[body + 5] !== 0x2a) {
        return { problem: 'is damaged: its VP8 frame has no start code' };
      }
      return {
        type: 'image/webp',
        width: data.readUInt16LE(body + 6) & 0x3fff,
        height: data.readUInt16LE(body + 8) & 0x3fff,
      };
    case 'VP8L': {
      if (data[body] !== 0x2f) return { problem: 'is damaged: its lossless (VP8L) header is invalid' };
      const bits = data.readUInt32LE(body + 1);
      return { type: 'image/webp', width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
    }
    case 'VP8X':
      return {
        type: 'image/webp',
        width: data.readUIntLE(body + 4, 3) + 1,
        height: data.readUIntLE(body + 7, 3) + 1,
      };
    default:
      return { problem: `is damaged: its first chunk is "${name}", not a VP8, VP8L or VP8X image` };
  }
}
