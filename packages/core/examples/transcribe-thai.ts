// Transcribe Thai speech over the streaming recogniser: node transcribe-thai.ts <audio.wav>
import path from 'node:path';
import { createFileAccess, createPolymodal } from '@polymodal/core';

const [audio = 'thai.wav'] = process.argv.slice(2);
const polymodal = createPolymodal({
  files: createFileAccess({ allowedDirs: [path.dirname(path.resolve(audio))] }),
});
try {
  const { text } = await polymodal.thaiAsr.transcribe({
    file: path.resolve(audio),
    speed: 0, // as fast as the recogniser takes it; 1 = real time, as a microphone would
    onPartial: (caption) => console.error(caption),
    signal: AbortSignal.timeout(120_000),
  });
  console.log(text);
} finally {
  await polymodal.close();
}
