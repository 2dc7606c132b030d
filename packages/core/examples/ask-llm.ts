// Ask the platform's shared LLM: node ask-llm.ts "<question>"
import { createPolymodal } from '@polymodal/core';

const [question = 'Say hello in Thai.'] = process.argv.slice(2);
const polymodal = createPolymodal();
try {
  const { data: models } = await polymodal.llm.models();
  const model = models[0]?.id;
  if (!model) throw new Error('The platform lists no model.');
  console.log(await polymodal.llm.complete(question, { model, maxTokens: 200 }));
} finally {
  await polymodal.close();
}
