import { describe, expect, it } from 'vitest';
import { decideOutputStyle } from './output-style.js';

const terminal = { isTTY: true };
const pipe = { isTTY: false };

describe('decideOutputStyle', () => {
  it('colours and redraws on a terminal only', () => {
    expect(decideOutputStyle(terminal, {})).toEqual({ colour: true, redraw: true });
    expect(decideOutputStyle(pipe, {})).toEqual({ colour: false, redraw: false });
    expect(decideOutputStyle({}, {})).toEqual({ colour: false, redraw: false });
    expect(decideOutputStyle(terminal, { TERM: 'dumb' })).toEqual({ colour: false, redraw: false });
  });

  it('is plain with NO_COLOR set to any non-empty value, and ignores an empty one', () => {
    expect(decideOutputStyle(terminal, { NO_COLOR: '1' })).toEqual({ colour: false, redraw: false });
    expect(decideOutputStyle(terminal, { NO_COLOR: 'false' })).toEqual({ colour: false, redraw: false });
    expect(decideOutputStyle(terminal, { NO_COLOR: '' })).toEqual({ colour: true, redraw: true });
  });

  it('lets FORCE_COLOR force colour (never redraws into a pipe) or turn it off', () => {
    expect(decideOutputStyle(pipe, { FORCE_COLOR: '1' })).toEqual({ colour: true, redraw: false });
    expect(decideOutputStyle(terminal, { FORCE_COLOR: '1', NO_COLOR: '1' })).toMatchObject({ colour: true });
    expect(decideOutputStyle(terminal, { FORCE_COLOR: '0' })).toEqual({ colour: false, redraw: false });
  });
});
