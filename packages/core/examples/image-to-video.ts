// Animate a public image: node image-to-video.ts <https image URL> "<prompt>"
import { createPolymodal } from '@polymodal/core';

const [image = 'https://media.example/cat.png', prompt = 'The cat slowly turns its head'] =
  process.argv.slice(2);
const polymodal = createPolymodal();
try {
  const { requestId } = await polymodal.imageToVideo.submit({
    prompt,
    image: { url: image },
    duration: 5,
    aspect_ratio: '16:9',
  });
  const job = await polymodal.imageToVideo.wait(requestId);
  console.log(job.status, job.video?.url);
} finally {
  await polymodal.close();
}
