import { describe, expect, it } from 'vitest';
import { SERVICES, serviceOf } from './service-table.js';

describe('the service table', () => {
  it("keeps the spec's 5 s between two reads of a meeting job", () => {
    expect(serviceOf('meeting').pollIntervalMs).toBe(5_000);
    expect(serviceOf('no-such-service')).toBeUndefined();
  });

  it('holds platform facts only: no row names an MCP tool or server', () => {
    for (const service of SERVICES) {
      expect(Object.keys(service).sort()).toEqual(
        expect.not.arrayContaining(['server', 'waitTool', 'tool', 'getTool']),
      );
    }
  });
});
