#!/usr/bin/env node
// The container's HEALTHCHECK: GET /healthz on the dashboard's configured address. It loads the same config as the
// process (PROSPECT_SYNC_CONFIG, else config/prospect-sync.yaml, with the same ${VAR}s and *_FILE secrets), so a
// changed server.port is followed; a `--port` flag given to the process is not seen. Exit 0 on 200, else 1.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = join(root, 'dist', 'src', 'config', 'index.js');
const TIMEOUT_MS = 4_000;

async function configModule() {
  if (existsSync(built)) return import(pathToFileURL(built).href);
  const { register } = await import('tsx/esm/api');
  register();
  return import(pathToFileURL(join(root, 'src', 'config', 'index.ts')).href);
}

/** Where to reach a server bound to `host`: a wildcard address is reached on loopback. */
function probeHost(host) {
  if (host === '0.0.0.0' || host === '::' || host === '[::]') return '127.0.0.1';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

try {
  const { loadConfig, resolveConfigPath } = await configModule();
  const { server } = await loadConfig({ path: resolveConfigPath(undefined, process.env), env: process.env });
  const res = await fetch(`http://${probeHost(server.host)}:${server.port}/healthz`, {
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  process.exit(res.ok ? 0 : 1);
} catch (err) {
  process.stderr.write(`healthcheck: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}\n`);
  process.exit(1);
}
