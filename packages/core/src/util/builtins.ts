/**
 * Node built-in modules that a process using core rarely needs at start, loaded when first used. An ESM
 * `import … from 'node:crypto'` evaluates the module when the importing module loads (and, through the
 * namespace's getters, WebCrypto too): in an MCP server that a host starts at launch and may never call,
 * crypto, dns and zlib cost about 3 ms and 1–2 MiB of every start (Node 20).
 * `process.getBuiltinModule` (Node 20.16 and later) returns the module itself, with no ESM namespace.
 */
export function nodeCrypto(): typeof import('node:crypto') {
  return process.getBuiltinModule('node:crypto');
}

export function nodeDns(): typeof import('node:dns') {
  return process.getBuiltinModule('node:dns');
}

export function nodeZlib(): typeof import('node:zlib') {
  return process.getBuiltinModule('node:zlib');
}
