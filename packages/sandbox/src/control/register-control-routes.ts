/**
 * The control routes under `/__sandbox/` (no auth: the sandbox listens on loopback by default). They
 * mirror `SandboxControl` so that a sandbox in another process can be steered over HTTP.
 */
import { z } from 'zod';
import { UnknownUserError } from '../framework/accounts.js';
import { FaultRuleError } from '../framework/fault-engine.js';
import { HttpError } from '../framework/http-error.js';
import type { Router } from '../framework/router.js';
import { json } from '../framework/sandbox-response.js';
import type { SandboxControl } from './sandbox-control.js';

const ClockBody = z.union([
  z.strictObject({ advanceMs: z.number().finite().min(0) }),
  z.strictObject({ hold: z.literal(true) }),
  z.strictObject({ release: z.literal(true) }),
]);
const CreditsBody = z.strictObject({ userId: z.string().min(1), credits: z.number().finite().min(0) });

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new HttpError(
    400,
    `invalid request: ${result.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`).join('; ')}`,
  );
}

export function registerControlRoutes(router: Router, control: SandboxControl): void {
  const faultsBody = () => ({
    faults: control.faults().map((entry) => ({
      ...entry.rule,
      ...(entry.remaining !== undefined ? { remaining: entry.remaining } : {}),
    })),
  });

  router.route('GET', '/__sandbox/faults', () => json(200, faultsBody()));
  router.route('PUT', '/__sandbox/faults', async (request) => {
    const body = await request.readJson();
    // Either `{faults: [...]}` or the bare array.
    const rules = Array.isArray(body) ? body : (body as { faults?: unknown })?.faults;
    if (!Array.isArray(rules)) throw new HttpError(400, 'invalid request: send {faults: [rule, ...]}');
    try {
      control.setFaults(rules);
    } catch (error) {
      if (error instanceof FaultRuleError) throw new HttpError(400, error.message);
      throw error;
    }
    return json(200, faultsBody());
  });
  router.route('DELETE', '/__sandbox/faults', () => {
    control.clearFaults();
    return json(200, faultsBody());
  });
  router.route('GET', '/__sandbox/counters', () => json(200, control.counters()));
  router.route('GET', '/__sandbox/requests', (request) => {
    const method = request.url.searchParams.get('method') ?? undefined;
    const path = request.url.searchParams.get('path') ?? undefined;
    try {
      return json(200, {
        requests: control.requests({
          ...(method ? { method } : {}),
          ...(path !== undefined ? { path } : {}),
        }),
      });
    } catch (error) {
      if (error instanceof SyntaxError) {
        throw new HttpError(400, 'invalid request: path must be the source of a valid regular expression');
      }
      throw error;
    }
  });
  router.route('POST', '/__sandbox/clock', async (request) => {
    const parsed = ClockBody.safeParse(await request.readJson());
    // A union's own messages name every branch's problem; one sentence saying what fits is clearer.
    if (!parsed.success) {
      throw new HttpError(
        400,
        'invalid request: send exactly one of {advanceMs: <ms ≥ 0>}, {hold: true} or {release: true}',
      );
    }
    const body = parsed.data;
    if ('advanceMs' in body) control.advance(body.advanceMs);
    else if ('hold' in body) control.holdClock();
    else control.releaseClock();
    return json(200, {
      now: new Date(control.now()).toISOString(),
      held: control.isClockHeld(),
      ...('advanceMs' in body ? { advancedMs: body.advanceMs } : {}),
    });
  });
  router.route('GET', '/__sandbox/credits', (request) => {
    const userId = request.url.searchParams.get('userId') ?? '';
    try {
      return json(200, { userId, credits: control.getCredits(userId) });
    } catch (error) {
      if (error instanceof UnknownUserError) throw new HttpError(404, error.message);
      throw error;
    }
  });
  router.route('PUT', '/__sandbox/credits', async (request) => {
    const { userId, credits } = parse(CreditsBody, await request.readJson());
    try {
      control.setCredits(userId, credits);
    } catch (error) {
      if (error instanceof UnknownUserError) throw new HttpError(404, error.message);
      throw error;
    }
    return json(200, { userId, credits: control.getCredits(userId) });
  });
  router.route('POST', '/__sandbox/reset', async () => {
    await control.reset();
    return json(200, { success: true });
  });
}
