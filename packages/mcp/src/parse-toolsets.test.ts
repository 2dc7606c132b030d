import { describe, expect, it } from 'vitest';
import { parseToolsets } from './parse-toolsets.js';
import { readCombinedArgs } from './read-combined-args.js';

describe('choosing toolsets', () => {
  it('serves every toolset when none is named, and the named ones otherwise', () => {
    expect(parseToolsets(undefined)).toEqual(['meeting', 'media', 'speech']);
    expect(parseToolsets(' Speech , media ')).toEqual(['media', 'speech']);
  });

  it('refuses a misspelt toolset with the valid names, instead of silently serving fewer tools', () => {
    expect(() => parseToolsets('meeting,vidoe')).toThrow(
      /unknown toolset vidoe: choose from meeting, media, speech/,
    );
  });

  it('takes its own flags out of the command line and leaves the runner the rest', () => {
    expect(readCombinedArgs(['--toolsets', 'media', '--http', '--read-only', '--port=0'])).toEqual({
      toolsets: 'media',
      readOnly: true,
      rest: ['--http', '--port=0'],
    });
    expect(readCombinedArgs(['--toolsets=meeting']).toolsets).toBe('meeting');
    expect(() => readCombinedArgs(['--toolsets'])).toThrow(/needs a value/);
  });
});
