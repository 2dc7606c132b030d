// Read a text aloud into a WAV file: node synthesize-speech.ts "<text>" <out.wav>
import { writeFile } from 'node:fs/promises';
import { createPolymodal } from '@polymodal/core';

const [text = 'สวัสดีครับ', out = 'speech.wav'] = process.argv.slice(2);
const polymodal = createPolymodal();
try {
  // Long texts are split into parts, synthesised within the key's concurrency limit and joined.
  const speech = await polymodal.speech.synthesizeText(
    { text, language: 'th' },
    { onProgress: (progress) => console.error(`${progress.finished} of ${progress.parts} parts done`) },
  );
  await writeFile(out, speech.wav);
  console.log(`${out}: ${speech.parts.length} part(s), ${speech.durationSeconds ?? '?'} s`);
} finally {
  await polymodal.close();
}
