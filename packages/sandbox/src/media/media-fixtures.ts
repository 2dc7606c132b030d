/**
 * The committed media fixtures (a 2 s 160x90 MP4 test pattern, tiny PNG/JPG/WEBP images), read once from
 * the package's `fixtures/` folder. The folder is found by walking up from this module, because the source
 * tree and the bundled `dist/` sit at different depths.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MediaFixtureName } from './media-config.js';

const FILES: Record<Exclude<MediaFixtureName, 'wav'>, string> = {
  mp4: 'sample-video.mp4',
  png: 'sample-image.png',
  jpg: 'sample-image.jpg',
  webp: 'sample-image.webp',
};

/** Duration of `sample-video.mp4` in seconds (as music-metadata reads it). */
export const SAMPLE_VIDEO_SECONDS = 2.046;

let fixturesDir: string | undefined;
const cache = new Map<string, Buffer>();

function findFixturesDir(): string {
  if (fixturesDir) return fixturesDir;
  let directory = path.dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 5; depth++) {
    const candidate = path.join(directory, 'fixtures');
    if (existsSync(path.join(candidate, FILES.mp4))) {
      fixturesDir = candidate;
      return candidate;
    }
    directory = path.dirname(directory);
  }
  throw new Error('the sandbox media fixtures are missing (expected a fixtures/ folder in the package)');
}

/** The bytes of a committed fixture file. */
export function readMediaFixture(name: Exclude<MediaFixtureName, 'wav'>): Buffer {
  let bytes = cache.get(name);
  if (!bytes) {
    bytes = readFileSync(path.join(findFixturesDir(), FILES[name]));
    cache.set(name, bytes);
  }
  return bytes;
}

/** The playable MP4 every generated video and clip of the sandbox is. */
export function sampleVideo(): Buffer {
  return readMediaFixture('mp4');
}
