/**
 * The combined bin's own flags, taken out of the command line before the shared runner parses the rest
 * (which refuses flags it does not know): `--toolsets a,b` (or `--toolsets=a,b`) and `--read-only`.
 */
export interface CombinedArgs {
  toolsets?: string;
  readOnly: boolean;
  /** Everything else, for runServerMain. */
  rest: string[];
}

export function readCombinedArgs(argv: readonly string[]): CombinedArgs {
  const result: CombinedArgs = { readOnly: false, rest: [] };
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index] as string;
    if (argument === '--read-only') result.readOnly = true;
    else if (argument.startsWith('--toolsets=')) result.toolsets = argument.slice('--toolsets='.length);
    else if (argument === '--toolsets') {
      const value = argv[index + 1];
      if (value === undefined || value.startsWith('--'))
        throw new Error('--toolsets needs a value such as meeting,media');
      result.toolsets = value;
      index++;
    } else result.rest.push(argument);
  }
  return result;
}
