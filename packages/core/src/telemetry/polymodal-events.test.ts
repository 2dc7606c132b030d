import { describe, expect, it } from 'vitest';
import { MEETING_API_PATH, TTS_API_PATH } from '../constants/service-table.js';
import { platformServiceOf } from './platform-service-of.js';
import { guardEvents } from './polymodal-events.js';

describe('guardEvents', () => {
  it('passes events on and swallows an observer that throws', () => {
    const seen: string[] = [];
    const events = guardEvents({
      jobStart: (event) => {
        seen.push(`${event.service}:${event.kind}`);
        throw new Error('observer bug');
      },
    });
    expect(() => events.jobStart({ service: 'meeting', kind: 'started' })).not.toThrow();
    expect(() => events.jobRead({ service: 'meeting' })).not.toThrow();
    expect(() =>
      guardEvents(undefined).platformResponse({ service: 'llm', method: 'GET', status: 200 }),
    ).not.toThrow();
    expect(seen).toEqual(['meeting:started']);
  });
});

describe('platformServiceOf', () => {
  it('names the service of a path without keeping its ids', () => {
    expect(platformServiceOf(`${MEETING_API_PATH}/jobs/job_123`)).toBe('meeting');
    expect(platformServiceOf(`${TTS_API_PATH}/audio/speech/task_9`)).toBe('speech');
    expect(platformServiceOf('/api/llm/v1/models')).toBe('llm');
    expect(platformServiceOf('/api/low-latency-asr/reading-score/task/t1')).toBe('reading-score');
    expect(platformServiceOf('/api/llm/v10/x')).toBe('other');
    expect(platformServiceOf('/somewhere/else')).toBe('other');
  });
});
