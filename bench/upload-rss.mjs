#!/usr/bin/env node
// Child process of the upload benchmark: uploads one recording one way and reports its own peak RSS, and
// the upload's wall time and CPU (user+sys).
//   node upload-rss.mjs <stream|fetch-blob> <baseUrl> <file>   (key in POLYMODAL_API_KEY)
import { openAsBlob } from 'node:fs';
import path from 'node:path';
import { createFileAccess, createPolymodal } from '@polymodal/core';

const [mode, baseUrl, file] = process.argv.slice(2);
const apiKey = process.env.POLYMODAL_API_KEY;
const rssMb = () => process.resourceUsage().maxRSS / 1024;
const cpuSeconds = () => {
  const usage = process.resourceUsage();
  return (usage.userCPUTime + usage.systemCPUTime) / 1e6;
};
const baselineMb = rssMb();
const started = performance.now();
let cpuAtUpload = cpuSeconds();
let uploadStarted = started;
let uploadEnded;

if (mode === 'stream') {
  // Every client reads local files only inside the directories it is given.
  const files = createFileAccess({ allowedDirs: [path.dirname(file)], outputDir: path.dirname(file) });
  const polymodal = createPolymodal({ baseUrl, apiKey, ledger: false, files });
  // The upload alone is timed and its CPU counted: module loading is not part of what is compared.
  cpuAtUpload = cpuSeconds();
  uploadStarted = performance.now();
  await polymodal.meeting.upload(file);
  uploadEnded = performance.now();
  await polymodal.close();
} else if (mode === 'fetch-blob') {
  // The usual way with Node's fetch: FormData around fs.openAsBlob (streams from disk, yet fetch keeps
  // the body to replay it on a redirect).
  const form = new FormData();
  form.append('file', await openAsBlob(file, { type: 'audio/wav' }), path.basename(file));
  const response = await fetch(`${baseUrl}/api/conference-summary/v1/uploads`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}` },
    body: form,
  });
  if (!response.ok) throw new Error(`upload failed with HTTP ${response.status}`);
  await response.json();
  uploadEnded = performance.now();
} else {
  throw new Error(`unknown mode ${mode}`);
}
process.stdout.write(
  `${JSON.stringify({
    mode,
    baselineMb,
    peakMb: rssMb(),
    seconds: (performance.now() - started) / 1000,
    uploadSeconds: (uploadEnded - uploadStarted) / 1000,
    cpuSeconds: cpuSeconds() - cpuAtUpload,
  })}\n`,
);
