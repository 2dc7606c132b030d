// CPU time of another process, from /proc (Linux), as the benchmarks read it for servers they spawned.
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
