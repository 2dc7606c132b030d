import { describe, expect, it } from 'vitest';
import { createMetrics, statusClass } from './create-metrics.js';
import { toolCallOutcome } from './tool-call-outcome.js';

describe('createMetrics', () => {
  it('keeps its own registry: two sets do not share counts and do not collide', async () => {
    const first = createMetrics({ processMetrics: false });
    const second = createMetrics({ processMetrics: false });
    first.toolCall('get_meeting', 'pending', 0.2);
    first.events.platformResponse?.({ service: 'speech', method: 'POST', status: 429 });
    first.events.jobStart?.({ service: 'meeting', kind: 'resumed' });
    first.events.jobRead?.({ service: 'meeting' });
    const text = (await first.render()).body;
    expect(text).toContain('polymodal_tool_calls_total{tool="get_meeting",outcome="pending"} 1');
    expect(text).toContain('polymodal_platform_responses_total{service="speech",status_class="429"} 1');
    expect(text).toContain('polymodal_jobs_total{service="meeting",event="resumed"} 1');
    expect(text).toContain('polymodal_job_polls_total{service="meeting"} 1');
    expect((await second.render()).body).not.toContain('get_meeting');
  });

  it('classes statuses with 429 apart from the other 4xx', () => {
    expect([200, 201, 302, 400, 404, 429, 500, 503].map(statusClass)).toEqual([
      '2xx',
      '2xx',
      '3xx',
      '4xx',
      '4xx',
      '429',
      '5xx',
      '5xx',
    ]);
  });

  it('reads a tool result as a user would: error, handle, failed or cancelled job, or done', () => {
    expect(toolCallOutcome({ isError: true, content: [] })).toBe('error');
    expect(toolCallOutcome({ content: [], structuredContent: { done: false, jobId: 'j' } })).toBe('pending');
    expect(toolCallOutcome({ content: [], structuredContent: { done: true, outcome: 'failed' } })).toBe(
      'failed',
    );
    expect(toolCallOutcome({ content: [], structuredContent: { done: true, outcome: 'cancelled' } })).toBe(
      'cancelled',
    );
    expect(toolCallOutcome({ content: [], structuredContent: { done: true, outcome: 'succeeded' } })).toBe(
      'ok',
    );
    expect(toolCallOutcome({ content: [{ type: 'text', text: 'hi' }] })).toBe('ok');
  });
});
