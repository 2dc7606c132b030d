/**
 * Starts a sandbox: the simulated platform on one `node:http` server, with every service registered on
 * one router over shared accounts, auth, credits, clock, counters and faults.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pickKeys, resolveUsers, type SandboxKeys } from './config/resolve-users.js';
import { type ParsedSandboxConfig, parseSandboxConfig, type SandboxConfig } from './config/sandbox-config.js';
import { registerControlRoutes } from './control/register-control-routes.js';
import { createSandboxControl, type SandboxControl } from './control/sandbox-control.js';
import { createAccounts, type SandboxUser } from './framework/accounts.js';
import { createAuthenticator } from './framework/authenticator.js';
import { createClock } from './framework/clock.js';
import { createCounterRegistry } from './framework/counters.js';
import { createPrng, type Prng } from './framework/create-prng.js';
import { createFaultEngine } from './framework/fault-engine.js';
import { createRequestLog } from './framework/request-log.js';
import { createRouter } from './framework/router.js';
import { createSandboxServer } from './framework/sandbox-server.js';
import type { ServiceFactory } from './framework/sandbox-service.js';
import { createCatalogVideoService } from './services/catalog-video/catalog-video-service.js';
import { createFlashcardsService } from './services/flashcards/flashcards-service.js';
import { createImageToVideoService } from './services/image-to-video/image-to-video-service.js';
import { createLlmService } from './services/llm/llm-service.js';
import { createMeetingService } from './services/meeting/meeting-service.js';
import { createReadingScoreService } from './services/reading-score/reading-score-service.js';
import { createSpeechSynthesisService } from './services/speech-synthesis/speech-synthesis-service.js';
import { createThaiAsrService } from './services/thai-asr/thai-asr-service.js';

export interface SandboxOptions {
  /** Default 0: a free port. */
  port?: number;
  /** Default 127.0.0.1. The control routes have no auth: keep the sandbox on loopback. */
  host?: string;
  /** Time scale of job progression, default 1; 10 = ten times faster. */
  speed?: number;
  /**
   * `'held'` starts with the sandbox clock held (as after `control.holdClock()`), and `control.reset()`
   * holds it again; default `'running'`.
   */
  clock?: 'running' | 'held';
  /** Users, keys, limits, faults (validated); defaults to two users with generated keys. */
  config?: SandboxConfig | ParsedSandboxConfig;
  /** Where uploaded files go (a fresh subdirectory, removed on close); default the OS temp dir. */
  dataDir?: string;
  /** Unexpected handler errors; default: one line on stderr. */
  onError?: (error: unknown) => void;
  /**
   * Further services beside the platform's, registered the same way on the same router, accounts, clock,
   * counters and faults: for tests and offline work on a service the platform does not have yet.
   */
  services?: readonly ServiceFactory[];
}

export interface Sandbox {
  /** Base URL without trailing slash, e.g. http://127.0.0.1:4010. */
  url: string;
  /** The first user's key. */
  apiKey: string;
  /** The second user's key (same site, other account). */
  apiKey2: string;
  keys: SandboxKeys;
  users: SandboxUser[];
  config: ParsedSandboxConfig;
  control: SandboxControl;
  close(): Promise<void>;
}

/** Services of this release; later services register the same way. */
const SERVICES: readonly ServiceFactory[] = [
  createMeetingService,
  createLlmService,
  createReadingScoreService,
  createThaiAsrService,
  createSpeechSynthesisService,
  createImageToVideoService,
  createCatalogVideoService,
  createFlashcardsService,
];

interface StartSettings {
  speed: number;
  port: number;
  host: string;
  clockMode: 'running' | 'held';
}

/** The start options with their defaults; out-of-range values are refused before anything starts. */
function readStartSettings(options: SandboxOptions): StartSettings {
  const speed = options.speed ?? 1;
  if (!Number.isFinite(speed) || speed <= 0) throw new RangeError('speed must be a finite number > 0');
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new RangeError('port must be an integer 0-65535');
  const host = options.host ?? '127.0.0.1';
  const clockMode = options.clock ?? 'running';
  if (clockMode !== 'running' && clockMode !== 'held')
    throw new RangeError("clock must be 'running' or 'held'");
  return { speed, port, host, clockMode };
}

/** A fresh directory for this sandbox's files under `parent` (default: the OS temp dir). */
async function createDataDir(parent: string | undefined): Promise<string> {
  const parentDir = parent ?? os.tmpdir();
  await mkdir(parentDir, { recursive: true });
  return mkdtemp(path.join(parentDir, 'polymodal-sandbox-'));
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const { speed, port, host, clockMode } = readStartSettings(options);
  const config = parseSandboxConfig(options.config ?? {});
  const configuredUsers = resolveUsers(config);

  const clock = createClock();
  if (clockMode === 'held') clock.hold();
  const counters = createCounterRegistry();
  const requestLog = createRequestLog();
  const accounts = createAccounts(configuredUsers);
  let random: Prng = createPrng(config.seed);
  const faults = createFaultEngine({ random: () => random(), counters });
  faults.set(config.faults);
  const dataDir = await createDataDir(options.dataDir);

  const services = [...SERVICES, ...(options.services ?? [])].map((factory) =>
    factory({ config, accounts, clock, counters, speed, dataDir }),
  );
  const router = createRouter();
  for (const service of services) service.register(router);
  const settle = () => {
    for (const service of services) service.settle();
  };

  const control = createSandboxControl({
    faults,
    configuredFaults: config.faults,
    counters,
    requestLog,
    accounts,
    clock,
    clockHeldAtStart: clockMode === 'held',
    settle,
    resetServices: async () => {
      await Promise.all(services.map((service) => service.reset()));
    },
    reseed: () => {
      random = createPrng(config.seed);
    },
  });
  const controlRouter = createRouter();
  registerControlRoutes(controlRouter, control);

  const server = createSandboxServer({
    router,
    controlRouter,
    faults,
    counters,
    requestLog,
    clock,
    authenticator: createAuthenticator({ accounts, clock }),
    beforeRequest: settle,
    ...(options.onError ? { onError: options.onError } : {}),
  });
  let url: string;
  try {
    url = await server.listen({ port, host });
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  const keys = pickKeys(configuredUsers, clock.now());

  let closing: Promise<void> | undefined;
  const close = async () => {
    await server.close();
    await Promise.all(services.map((service) => service.close()));
    await rm(dataDir, { recursive: true, force: true });
  };
  return {
    url,
    apiKey: keys.primary,
    apiKey2: keys.secondary,
    keys,
    users: accounts.users(),
    config,
    control,
    close() {
      closing ??= close();
      return closing;
    },
  };
}
