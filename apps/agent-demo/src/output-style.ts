/**
 * Whether the narrated run may use colour and redraw its progress line in place. Colour only on a terminal,
 * never with NO_COLOR set to anything non-empty (no-color.org) or TERM=dumb; FORCE_COLOR forces it on
 * (or off with 0/false), taking precedence over NO_COLOR as it does in Node itself. Redrawing a line
 * (carriage return, erase) needs a real terminal as well as colour: piped output, a log file or a CI job
 * gets plain lines only, one per change.
 */
export interface OutputStyle {
  /** ANSI colour and weight escapes. */
  colour: boolean;
  /** Progress redrawn in place (`\r` and erase line) instead of a new line per change. */
  redraw: boolean;
}

export function decideOutputStyle(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): OutputStyle {
  const terminal = stream.isTTY === true && env.TERM !== 'dumb';
  const force = env.FORCE_COLOR?.trim().toLowerCase();
  const forced = force === undefined || force === '' ? undefined : force !== '0' && force !== 'false';
  const noColour = (env.NO_COLOR ?? '') !== '';
  const colour = forced ?? (terminal && !noColour);
  return { colour, redraw: terminal && colour };
}
