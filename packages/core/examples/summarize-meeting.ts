// Summarise a recording and translate the summary: node summarize-meeting.ts <recording> [target language]
import path from 'node:path';
import { createFileAccess, createPolymodal, JobFailedError } from '@polymodal/core';

const [recording = 'meeting.wav', targetLanguage = 'en'] = process.argv.slice(2);
const polymodal = createPolymodal({
  // Local files are read only inside the directories you allow.
  files: createFileAccess({ allowedDirs: [path.dirname(path.resolve(recording))] }),
});
try {
  const job = await polymodal.meeting.summarize({
    file: path.resolve(recording),
    sourceLanguage: 'auto',
    targetLanguage: targetLanguage as 'en',
    onProgress: (current) => console.error(`${current.status} ${current.progress ?? 0}%`),
  });
  console.log(job.summary?.overview);
} catch (error) {
  if (JobFailedError.isInstance(error)) console.error(`The job failed: ${error.message}`);
  throw error;
} finally {
  await polymodal.close();
}
