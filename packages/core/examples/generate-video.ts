// Generate a video with a model of the platform's catalog: node generate-video.ts "<prompt>" [model]
import { createPolymodal } from '@polymodal/core';

const [prompt = 'A paper boat on a rainy street', model] = process.argv.slice(2);
const polymodal = createPolymodal();
try {
  const catalog = await polymodal.catalogVideo.models();
  const chosen = model ?? catalog.find((entry) => entry.id.includes('text-to-video'))?.id ?? catalog[0]?.id;
  if (!chosen) throw new Error('The catalog is empty.');
  // The request is checked against the live catalog before anything is sent.
  const { requestId, resumed } = await polymodal.catalogVideo.submit({ model: chosen, prompt });
  console.error(resumed ? `resuming ${requestId}` : `started ${requestId}`);
  const job = await polymodal.catalogVideo.wait(requestId);
  console.log(job.status, job.video?.url);
} finally {
  await polymodal.close();
}
