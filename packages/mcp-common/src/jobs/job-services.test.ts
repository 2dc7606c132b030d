import { describe, expect, it } from 'vitest';
import { jobServicesOf } from './job-services.js';
import { jobsServedBy } from './list-jobs-tool.js';

describe('which server continues which jobs', () => {
  it("lists each MCP server's job services, in the order its list_jobs shows them", () => {
    const services = (server: 'meeting' | 'media' | 'speech') =>
      jobServicesOf(server).map((row) => row.service);
    expect(services('meeting')).toEqual(['meeting']);
    expect(services('media')).toEqual(['catalog-video', 'image-to-video', 'flashcards', 'speech-text']);
    expect(services('speech')).toEqual(['reading-score']);
  });

  it('names the tool that continues every job a server answers with, once each in list_jobs', () => {
    const rows = (['meeting', 'media', 'speech'] as const).flatMap((server) => jobServicesOf(server));
    expect(rows.map((row) => [row.service, row.waitTool])).toEqual([
      ['meeting', 'get_meeting'],
      ['catalog-video', 'get_video_job'],
      ['image-to-video', 'get_video_job'],
      ['flashcards', 'get_flashcards'],
      ['speech-text', 'get_speech'],
      ['reading-score', 'get_reading_score'],
    ]);
    expect(jobsServedBy(['media']).getTool).toBe('get_video_job, get_flashcards, get_speech');
  });
});
