import { describe, expect, it } from 'vitest';
import { jobServicesOf, SERVICES, serviceOf } from './service-table.js';

describe('the service table', () => {
  it("lists each MCP server's job services, in the order its list_jobs shows them", () => {
    expect(jobServicesOf('meeting')).toEqual(['meeting']);
    expect(jobServicesOf('media')).toEqual(['catalog-video', 'image-to-video', 'flashcards', 'speech-text']);
    expect(jobServicesOf('speech')).toEqual(['reading-score']);
  });

  it('names the tool that continues every job a server answers with', () => {
    const continued = SERVICES.filter((service) => 'server' in service);
    expect(continued.map((service) => [service.name, service.waitTool])).toEqual([
      ['meeting', 'get_meeting'],
      ['catalog-video', 'get_video_job'],
      ['image-to-video', 'get_video_job'],
      ['flashcards', 'get_flashcards'],
      ['speech-text', 'get_speech'],
      ['reading-score', 'get_reading_score'],
    ]);
  });

  it("keeps the spec's 5 s between two reads of a meeting job", () => {
    expect(serviceOf('meeting').pollIntervalMs).toBe(5_000);
    expect(serviceOf('no-such-service')).toBeUndefined();
  });
});
