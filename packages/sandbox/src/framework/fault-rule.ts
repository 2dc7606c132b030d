/**
 * Fault rules: what can go wrong on the wire, when, and how often. Validated with zod because they come
 * from files, from the control route and from tests alike.
 */
import { z } from 'zod';

export const FAULT_KINDS = [
  'latency',
  'status',
  'reset-before',
  'reset-after',
  'truncate',
  'auth-unavailable',
  'hang',
  'ws-stall',
  'ws-malformed',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** Kinds that act on an open WebSocket; they match upgrades only, never a plain HTTP request. */
export const WEB_SOCKET_FAULT_KINDS = ['ws-stall', 'ws-malformed'] as const satisfies readonly FaultKind[];

export function isWebSocketFaultKind(kind: FaultKind): kind is (typeof WEB_SOCKET_FAULT_KINDS)[number] {
  return (WEB_SOCKET_FAULT_KINDS as readonly FaultKind[]).includes(kind);
}

/** What `ws-malformed` sends when the rule names no frame: JSON cut off mid-object. */
export const DEFAULT_MALFORMED_FRAME = '{"type":"partial","text":';

export const FaultRule = z
  .strictObject({
    match: z
      .strictObject({
        method: z.string().min(1).optional(),
        /** Regular expression source, tested against the request path (without the query). */
        path: z
          .string()
          .refine((source) => {
            try {
              new RegExp(source);
              return true;
            } catch {
              return false;
            }
          }, 'must be a valid regular expression')
          .optional(),
      })
      .optional(),
    kind: z.enum(FAULT_KINDS),
    status: z.number().int().min(400).max(599).optional(),
    retryAfter: z.string().min(1).optional(),
    latencyMs: z.number().int().min(0).max(600_000).optional(),
    rate: z.number().min(0).max(1).optional(),
    count: z.number().int().min(1).optional(),
    /** WebSocket kinds: how many events the server sends normally first (default 1: the `ready` event). */
    afterEvents: z.number().int().min(0).max(1_000_000).optional(),
    /** `ws-malformed`: the text frame to send (default: JSON cut off mid-object). */
    frame: z.string().min(1).max(65_536).optional(),
  })
  .superRefine((rule, context) => {
    if (rule.kind === 'status' && rule.status === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['status'],
        message: 'a "status" fault needs a status (e.g. 500, 503, 429)',
      });
    }
    if (rule.kind === 'latency' && rule.latencyMs === undefined) {
      context.addIssue({ code: 'custom', path: ['latencyMs'], message: 'a "latency" fault needs latencyMs' });
    }
    const webSocket = isWebSocketFaultKind(rule.kind);
    if (!webSocket && rule.afterEvents !== undefined) {
      context.addIssue({
        code: 'custom',
        path: ['afterEvents'],
        message: 'afterEvents only applies to the WebSocket kinds "ws-stall" and "ws-malformed"',
      });
    }
    if (rule.kind !== 'ws-malformed' && rule.frame !== undefined) {
      context.addIssue({
        code: 'custom',
        path: ['frame'],
        message: 'frame only applies to a "ws-malformed" fault',
      });
    }
    if (webSocket && rule.match?.method !== undefined && rule.match.method.toUpperCase() !== 'GET') {
      context.addIssue({
        code: 'custom',
        path: ['match', 'method'],
        message: `a "${rule.kind}" fault matches WebSocket upgrades, which are GET requests: drop match.method`,
      });
    }
  });
export type FaultRule = z.infer<typeof FaultRule>;
