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
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

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
  });
export type FaultRule = z.infer<typeof FaultRule>;
