/**
 * How the sandbox "recognises" streamed Thai speech. It cannot recognise speech: the fixture generator
 * voices each phrase of this fixed table as a steady tone burst whose pitch encodes the phrase's index
 * (`180 + 40 × index` Hz), with silence between phrases. The recogniser finds voiced regions by energy
 * (real VAD) and estimates each region's pitch from zero crossings, which survives resampling and gain.
 */
import { encodeWav } from '@polymodal/core/audio';

export const THAI_PHRASES = [
  'สวัสดีครับ',
  'วันนี้อากาศดี',
  'ฉันชอบอ่านหนังสือ',
  'ขอบคุณมาก',
  'ประชุมเริ่มตอนเก้าโมง',
  'เราจะส่งรายงานพรุ่งนี้',
  'ราคาเท่าไหร่',
  'ไปห้องสมุดกันไหม',
  'อาหารอร่อยมาก',
  'ช่วยพูดช้าๆ หน่อย',
  'ผมมาจากเชียงใหม่',
  'ขอโทษที่มาสาย',
] as const;

export const BASE_PITCH_HZ = 180;
export const PITCH_STEP_HZ = 40;

export function pitchOfPhrase(index: number): number {
  return BASE_PITCH_HZ + PITCH_STEP_HZ * index;
}

export function phraseOfPitch(hz: number): string {
  const index = Math.round((hz - BASE_PITCH_HZ) / PITCH_STEP_HZ);
  return THAI_PHRASES[Math.min(THAI_PHRASES.length - 1, Math.max(0, index))] as string;
}

/**
 * A real WAV (PCM16 mono) voicing the given phrases of THAI_PHRASES as tone bursts (about 0.6–1.2 s each)
 * with `pauseSeconds` of silence between them and half a second before and after.
 */
export function createThaiSpeech(options: {
  phrases: readonly string[];
  sampleRate?: number;
  pauseSeconds?: number;
}): Buffer {
  const rate = options.sampleRate ?? 16_000;
  const pause = options.pauseSeconds ?? 0.5;
  const parts: number[] = [];
  const silence = (seconds: number) => {
    for (let index = 0; index < Math.round(seconds * rate); index++) parts.push(0);
  };
  silence(0.5);
  options.phrases.forEach((phrase, position) => {
    const index = THAI_PHRASES.indexOf(phrase as (typeof THAI_PHRASES)[number]);
    if (index < 0) throw new RangeError(`"${phrase}" is not one of THAI_PHRASES`);
    const seconds = Math.min(1.2, 0.6 + phrase.length * 0.03);
    const hz = pitchOfPhrase(index);
    const count = Math.round(seconds * rate);
    for (let sample = 0; sample < count; sample++) {
      const edge = Math.min(1, sample / (0.02 * rate), (count - sample) / (0.02 * rate));
      parts.push(Math.round(12_000 * edge * Math.sin((2 * Math.PI * hz * sample) / rate)));
    }
    if (position < options.phrases.length - 1) silence(pause);
  });
  silence(0.5);
  const samples = Int16Array.from(parts);
  return encodeWav({ samples, sampleRate: rate });
}
