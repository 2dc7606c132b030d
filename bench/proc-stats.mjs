// CPU time and memory of another process, from /proc (Linux), as the benchmarks read them for the servers
// they spawn.
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** user + system CPU seconds of `pid` so far (/proc/<pid>/stat utime + stime; resolution 1/CLK_TCK s). */
export async function processCpuSeconds(pid) {
  const text = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Field 2 (the command) is in parentheses and may hold spaces: count from the last ')'. The rest starts
  // at field 3, so utime (field 14) and stime (field 15) are at indexes 11 and 12.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** A `Vm…:` line of /proc/<pid>/status in MiB (null where there is no such file or line). */
async function statusMib(pid, field) {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kib = Number(new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status)?.[1]);
    return Number.isFinite(kib) ? kib / 1024 : null;
  } catch {
    return null;
  }
}

/** VmRSS of a process in MiB (Linux; null elsewhere). */
export const residentMib = (pid) => statusMib(pid, 'VmRSS');

/** VmHWM (peak resident set over the process's life) in MiB (Linux; null elsewhere). */
export const peakMib = (pid) => statusMib(pid, 'VmHWM');
