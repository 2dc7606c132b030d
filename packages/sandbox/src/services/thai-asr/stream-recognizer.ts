/**
 * The sandbox's streaming "recogniser": energy VAD on 20 ms frames, voiced regions closed after 200 ms of
 * silence, and each region's pitch (zero crossings) mapped to a phrase of THAI_PHRASES.
 */
import { phraseOfPitch } from './thai-phrases.js';

export interface RecognizedSegment {
  start: number;
  end: number;
  text: string;
}

/** RMS above this (of full scale) marks a voiced frame. */
const VOICE_RMS = 0.01 * 32768;
const CLOSE_AFTER_SILENT_FRAMES = 10;

export class StreamRecognizer {
  private readonly frameSamples: number;
  private pending: number[] = [];
  private processedSamples = 0;
  private segments: RecognizedSegment[] = [];
  private region:
    | { startSample: number; endSample: number; crossings: number; voicedSamples: number; last: number }
    | undefined;
  private silentFrames = 0;
  /** Sample offset of the first voiced frame, once speech was heard. */
  speechStartSample: number | undefined;

  constructor(readonly sampleRate: number) {
    this.frameSamples = Math.max(1, Math.round(sampleRate * 0.02));
  }

  get audioMs(): number {
    return ((this.processedSamples + this.pending.length) * 1000) / this.sampleRate;
  }

  push(samples: Int16Array): void {
    for (const sample of samples) this.pending.push(sample);
    while (this.pending.length >= this.frameSamples) {
      this.frame(this.pending.splice(0, this.frameSamples));
    }
  }

  private frame(frame: number[]): void {
    let sum = 0;
    for (const value of frame) sum += value * value;
    const voiced = Math.sqrt(sum / frame.length) > VOICE_RMS;
    const at = this.processedSamples;
    this.processedSamples += frame.length;
    if (voiced) {
      this.speechStartSample ??= at;
      this.silentFrames = 0;
      if (!this.region)
        this.region = { startSample: at, endSample: at, crossings: 0, voicedSamples: 0, last: frame[0] ?? 0 };
      const region = this.region;
      for (const value of frame) {
        if (region.last < 0 !== value < 0) region.crossings++;
        region.last = value;
      }
      region.voicedSamples += frame.length;
      region.endSample = at + frame.length;
    } else if (this.region) {
      this.silentFrames++;
      if (this.silentFrames >= CLOSE_AFTER_SILENT_FRAMES) this.closeRegion();
    }
  }

  private regionText(): string | undefined {
    const region = this.region;
    if (!region || region.voicedSamples === 0) return undefined;
    const hz = region.crossings / 2 / (region.voicedSamples / this.sampleRate);
    return phraseOfPitch(hz);
  }

  private closeRegion(): void {
    const text = this.regionText();
    if (text && this.region) {
      this.segments.push({
        start: this.region.startSample / this.sampleRate,
        end: this.region.endSample / this.sampleRate,
        text,
      });
    }
    this.region = undefined;
  }

  /** What is heard so far: closed segments, plus the open region once it holds `minDecodeMs` of voice. */
  current(minDecodeMs: number): { text: string; segments: RecognizedSegment[] } {
    const segments = [...this.segments];
    const open = this.region;
    if (open && (open.voicedSamples * 1000) / this.sampleRate >= minDecodeMs) {
      const text = this.regionText();
      if (text)
        segments.push({
          start: open.startSample / this.sampleRate,
          end: open.endSample / this.sampleRate,
          text,
        });
    }
    return { text: segments.map((segment) => segment.text).join(' '), segments };
  }

  /** Ends the utterance: closes the open region and returns everything heard. */
  finish(): { text: string; segments: RecognizedSegment[] } {
    if (this.pending.length > 0) this.frame(this.pending.splice(0));
    this.closeRegion();
    return { text: this.segments.map((segment) => segment.text).join(' '), segments: [...this.segments] };
  }
}
