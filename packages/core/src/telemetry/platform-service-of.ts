/**
 * The service a request path belongs to, as a bounded label for telemetry: the path itself holds job ids
 * and would give every job its own series. The prefixes and labels are the service table's.
 */
import { type PlatformService, SERVICES } from '../constants/service-table.js';

/** `meeting`, `speech`, … for a platform path; `other` for anything else. */
export function platformServiceOf(path: string): string {
  for (const { name, metricsLabel = name, apiPaths } of SERVICES as readonly PlatformService[]) {
    for (const prefix of apiPaths) {
      if (path === prefix || path.startsWith(`${prefix}/`) || path.startsWith(`${prefix}?`))
        return metricsLabel;
    }
  }
  return 'other';
}
