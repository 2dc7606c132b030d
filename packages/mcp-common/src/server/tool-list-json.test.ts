import { describe, expect, it } from 'vitest';
import { svgIcon, withoutVacuousKeywords } from './tool-list-json.js';

describe('tool list JSON', () => {
  it('withoutVacuousKeywords keeps properties named like the keywords and non-empty additionalProperties', () => {
    const schema = {
      type: 'object',
      properties: { minimum: { type: 'integer', minimum: -9007199254740991 }, maximum: { type: 'number' } },
      additionalProperties: false,
      propertyNames: { pattern: '^a' },
    };
    expect(withoutVacuousKeywords(schema)).toEqual({
      type: 'object',
      properties: { minimum: { type: 'integer' }, maximum: { type: 'number' } },
      additionalProperties: false,
      propertyNames: { pattern: '^a' },
    });
  });

  it('svgIcon escapes only what a URI cannot carry, and decodes back to the SVG', () => {
    const svg = "<svg xmlns='http://www.w3.org/2000/svg'><path d='M0 0h1' fill='#fff'/></svg>";
    const icon = svgIcon(svg);
    expect(icon.src).not.toMatch(/[<>#\s"]/);
    expect(decodeURIComponent(icon.src.slice('data:image/svg+xml,'.length))).toBe(svg);
    expect(icon.mimeType).toBe('image/svg+xml');
  });
});
