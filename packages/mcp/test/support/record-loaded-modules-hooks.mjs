// Loader hooks of record-loaded-modules.mjs (they run on the loader's own thread).
import { appendFileSync } from 'node:fs';

let output;

export function initialize(data) {
  output = data.output;
}

export async function load(url, context, nextLoad) {
  if (output) appendFileSync(output, `${url}\n`);
  return nextLoad(url, context);
}
