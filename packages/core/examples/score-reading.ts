// Score a student's Thai reading against the text: node score-reading.ts <student.wav> "<reference text>"
import path from 'node:path';
import { createFileAccess, createPolymodal } from '@polymodal/core';
import { isNoSpeechResult } from '@polymodal/core/contracts';

const [studentAudio = 'student.wav', referenceText = 'ฉันชอบอ่านหนังสือ'] = process.argv.slice(2);
const polymodal = createPolymodal({
  files: createFileAccess({ allowedDirs: [path.dirname(path.resolve(studentAudio))] }),
});
try {
  // Answered at once (200) or queued and polled (202): the same result either way.
  const result = await polymodal.readingScore.score({
    studentAudio: path.resolve(studentAudio),
    referenceText,
  });
  if (isNoSpeechResult(result)) console.log('No speech was heard.');
  else console.log(`overall ${result.scores.overall}`);
} finally {
  await polymodal.close();
}
