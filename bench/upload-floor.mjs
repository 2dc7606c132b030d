#!/usr/bin/env node
// Child process of the upload benchmark: the floor of a Node process sending the same form. The file is
// read synchronously into one reused 2 MiB buffer (no thread pool) and written to a plain `node:net` socket
// (no HTTP client, no stream pipeline), the next read waiting for the socket's `drain`. Nothing a Node client
// does can cost less per byte; beside curl it shows what Node's own socket path leaves of curl's speed.
//   node upload-floor.mjs <baseUrl> <file>   (key in POLYMODAL_API_KEY)
// Prints { uploadSeconds, cpuSeconds, peakMb, baselineMb } as one JSON line; exits non-zero unless the
// sandbox answered 2xx.
import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

const CHUNK = 2 * 1024 * 1024;
const ROUTE = '/api/conference-summary/v1/uploads';
const [baseUrl, file] = process.argv.slice(2);
const apiKey = process.env.POLYMODAL_API_KEY;
if (!baseUrl || !file || !apiKey) {
  process.stderr.write('usage: POLYMODAL_API_KEY=… node upload-floor.mjs <baseUrl> <file>\n');
  process.exit(2);
}
const url = new URL(baseUrl);
const rssMb = () => process.resourceUsage().maxRSS / 1024;
const cpuSeconds = () => {
  const usage = process.resourceUsage();
  return (usage.userCPUTime + usage.systemCPUTime) / 1e6;
};

const boundary = `----floor-${randomBytes(16).toString('hex')}`;
const head = Buffer.from(
  `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${path.basename(file)}"\r\n` +
    'Content-Type: audio/wav\r\n\r\n',
);
const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
const fd = openSync(file, 'r');
const size = fstatSync(fd).size;
const requestHead = Buffer.from(
  `POST ${ROUTE} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${apiKey}\r\n` +
    `Content-Type: multipart/form-data; boundary=${boundary}\r\n` +
    `Content-Length: ${head.length + size + tail.length}\r\n\r\n`,
);

const baselineMb = rssMb();
const cpuAtStart = cpuSeconds();
const started = performance.now();
const response = await new Promise((resolve, reject) => {
  const socket = net.connect({ host: url.hostname, port: Number(url.port) });
  socket.setNoDelay(true);
  // The answer is read up to its Content-Length (the socket is not half-closed: an HTTP server may take
  // the client's end as an abort before it answers).
  let received = '';
  socket.setEncoding('latin1');
  socket.on('data', (text) => {
    received += text;
    const headEnd = received.indexOf('\r\n\r\n');
    if (headEnd < 0) return;
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(received.slice(0, headEnd))?.[1] ?? 0);
    if (received.length - headEnd - 4 < length) return;
    socket.destroy();
    resolve(received);
  });
  socket.on('end', () => resolve(received));
  socket.on('error', reject);
  socket.on('connect', () => {
    socket.write(requestHead);
    socket.write(head);
    const buffer = Buffer.allocUnsafeSlow(CHUNK);
    let offset = 0;
    const pump = () => {
      while (offset < size) {
        const read = readSync(fd, buffer, 0, Math.min(CHUNK, size - offset), offset);
        if (read === 0) return reject(new Error('the file ended early'));
        offset += read;
        // A chunk above the socket's 16 KiB high-water mark always makes write() return false, so the
        // buffer is read into again only after the socket's `drain` (every byte of it handed to the kernel).
        if (!socket.write(read === CHUNK ? buffer : buffer.subarray(0, read))) {
          socket.once('drain', pump);
          return;
        }
      }
      socket.write(tail);
    };
    pump();
  });
});
const uploadSeconds = (performance.now() - started) / 1000;
const cpuSecondsUsed = cpuSeconds() - cpuAtStart;
closeSync(fd);
const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1]);
if (!(status >= 200 && status < 300)) {
  process.stderr.write(
    `upload-floor: the sandbox answered ${Number.isFinite(status) ? status : 'nothing'}\n`,
  );
  process.exit(1);
}
process.stdout.write(
  `${JSON.stringify({ uploadSeconds, cpuSeconds: cpuSecondsUsed, peakMb: rssMb(), baselineMb })}\n`,
);
