/**
 * Speech load for the cluster tests, and what the sandbox saw of it: texts of a known number of parts, and
 * a key's speech tasks counted from the sandbox's request log (created, refused with 429, most unfinished at
 * once), where the key's concurrentSessions is enforced.
 */
import type { LoggedRequest, Sandbox } from '@polymodal/sandbox';

/** `count` sentences of about 150 characters: each is one part (two would exceed 200). */
export function textOfParts(count: number, topic = 'planning'): string {
  return Array.from(
    { length: count },
    (_, index) =>
      `Sentence ${index + 1} of the ${topic} notes is long enough ${'to fill most of one part '.repeat(4)}on its own.`,
  ).join(' ');
}

export interface SpeechSeen {
  /** POSTs the sandbox admitted: tasks created, each one paid. */
  created: number;
  /** POSTs refused with 429 (nothing created). */
  refused: number;
  /**
   * The most tasks unfinished at once on the key, as the sandbox counts them against its limit (since the
   * sandbox's last reset). Not derived from the request log: a task can finish at the platform before any
   * client reads it, so counting from creation to the last read overstates what the platform held.
   */
  peakUnfinished: number;
  /** The admitted POSTs, oldest first. */
  createdRequests: LoggedRequest[];
  /** Every status read of a task, oldest first. */
  reads: LoggedRequest[];
}

/** One user's speech requests the sandbox logged, from position `since` of its log on (0: all). */
export function speechSeenBySandbox(sandbox: Sandbox, userId: string, since = 0): SpeechSeen {
  const mine = sandbox.control
    .requests({ path: '/audio/speech' })
    .filter((request) => request.user === userId && request.at >= since);
  const posts = mine.filter((request) => request.method === 'POST');
  const created = posts.filter((request) => request.status !== undefined && request.status < 300);
  const reads = mine.filter(
    (request) => request.method === 'GET' && /\/audio\/speech\/[^/]+$/.test(request.path),
  );
  return {
    created: created.length,
    refused: posts.filter((request) => request.status === 429).length,
    peakUnfinished: sandbox.control.counters().ttsPeakUnfinished?.[userId] ?? 0,
    createdRequests: created,
    reads,
  };
}
