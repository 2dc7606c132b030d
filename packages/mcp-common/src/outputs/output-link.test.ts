import { describe, expect, it } from 'vitest';
import { outputLink } from './output-link.js';

describe('outputLink', () => {
  it('points at the file with a file:// URI instead of carrying its bytes', () => {
    const link = outputLink('/tmp/out dir/summary #1.md', {
      mimeType: 'text/markdown',
      description: 'Summary',
      size: 12,
    });
    expect(link).toEqual({
      type: 'resource_link',
      uri: 'file:///tmp/out%20dir/summary%20%231.md',
      name: 'summary #1.md',
      mimeType: 'text/markdown',
      description: 'Summary',
      size: 12,
    });
  });
});
