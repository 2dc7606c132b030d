#!/usr/bin/env node
// Top frames of a V8 .cpuprofile (from `node --cpu-prof`) by self time, aggregated by function and file:
// `node summarize-cpu-profile.mjs <file.cpuprofile> [top=15]` prints a Markdown table. Self time comes from
// the sample timeline (each sample's delta goes to the node sampled). `(idle)` is left out of the shares,
// so they are of the busy time; files are shown from their package (node_modules/.pnpm/... trimmed).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function shortFile(url) {
  if (url === '') return '';
  const file = url.replace(/^file:\/\//, '');
  const modules = file.lastIndexOf('node_modules/');
  if (modules !== -1) return file.slice(modules + 'node_modules/'.length);
  const packages = file.indexOf('/packages/');
  if (packages !== -1) return file.slice(packages + 1);
  return file.startsWith('node:') ? file : path.basename(file);
}

export async function summarizeCpuProfile(file, top = 15) {
  const profile = JSON.parse(await readFile(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMicros = new Map();
  profile.samples.forEach((id, index) => {
    selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  const frames = new Map();
  let busy = 0;
  for (const [id, micros] of selfMicros) {
    const { callFrame } = byId.get(id);
    if (callFrame.functionName === '(idle)') continue;
    busy += micros;
    const key = `${callFrame.functionName || '(anonymous)'}\t${shortFile(callFrame.url)}`;
    frames.set(key, (frames.get(key) ?? 0) + micros);
  }
  const rows = [...frames.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  return `Busy ${(busy / 1000).toFixed(0)} ms of ${((profile.endTime - profile.startTime) / 1000).toFixed(0)} ms profiled.

| Self (ms) | Share of busy | Function | File |
|---:|---:|---|---|
${rows
  .map(([key, micros]) => {
    const [name, where] = key.split('\t');
    return `| ${(micros / 1000).toFixed(0)} | ${((micros / busy) * 100).toFixed(1)} % | \`${name}\` | ${where || '—'} |`;
  })
  .join('\n')}
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: node summarize-cpu-profile.mjs <file.cpuprofile> [top]\n');
    process.exit(2);
  }
  process.stdout.write(await summarizeCpuProfile(file, Number(top ?? 15)));
}
