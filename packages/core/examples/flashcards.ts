// Vocabulary flashcards from a video: node flashcards.ts <YouTube or direct video URL>
import { createPolymodal } from '@polymodal/core';

const [video = 'https://www.youtube.com/watch?v=dQw4w9WgXcQ'] = process.argv.slice(2);
const polymodal = createPolymodal();
try {
  const { jobId } = await polymodal.flashcards.startFromUrl(video, { learning_direction: 'thai_to_chinese' });
  const job = await polymodal.flashcards.wait(jobId);
  for (const segment of job.result?.segments.slice(0, 3) ?? []) console.log(JSON.stringify(segment));
  console.log(`${job.result?.segments.length ?? 0} segment(s)`);
} finally {
  await polymodal.close();
}
