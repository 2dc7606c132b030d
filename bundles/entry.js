/**
 * Entry point of every Polymodal MCPB bundle (copied to `server/entry.js`): turns what the host passes
 * into the environment the server reads, then starts the bundled server (`server/index.js`).
 *
 * Why a wrapper: an MCPB host substitutes `${user_config.x}` itself, and a `directory` setting with
 * `multiple: true` is a list. The host expands a list only where it is a whole `args` item (one argument
 * per folder); inside an `env` string it leaves the placeholder untouched. So the manifest passes the
 * readable folders as arguments, and this file joins them with path.delimiter into POLYMODAL_ALLOWED_DIRS,
 * the form core's file access parses. A setting the user left empty reaches us as the literal
 * placeholder (no default to substitute): such values are dropped, never used as a folder name.
 */
import path from 'node:path';

const PLACEHOLDER = /^\$\{[^}]+\}$/;

function warn(message) {
  // stdout is the protocol channel; warnings go to stderr, which hosts keep in their MCP log.
  process.stderr.write(`polymodal bundle: ${message}\n`);
}

for (const [name, value] of Object.entries(process.env)) {
  if (
    name.startsWith('POLYMODAL_') &&
    value !== undefined &&
    (value.trim() === '' || PLACEHOLDER.test(value))
  ) {
    delete process.env[name];
  }
}

const folders = [];
for (const argument of process.argv.slice(2)) {
  if (argument.trim() === '' || PLACEHOLDER.test(argument)) continue;
  // core splits POLYMODAL_ALLOWED_DIRS on path.delimiter: a folder whose name holds it would be read as
  // two folders, one of which the user never chose. Refusing it is the safe reading.
  if (argument.includes(path.delimiter)) {
    warn(`skipped the folder "${argument}": its name contains "${path.delimiter}"; rename it to allow it`);
    continue;
  }
  folders.push(argument);
}
if (folders.length > 0) {
  const configured = process.env.POLYMODAL_ALLOWED_DIRS;
  process.env.POLYMODAL_ALLOWED_DIRS = [...(configured ? [configured] : []), ...folders].join(path.delimiter);
}
// The server reads its own flags from argv (--http, --toolsets…): the folders are not for it.
process.argv.splice(2);

await import('./index.js');
