// The machine's cache folder of the harness, in plain JavaScript: the loader (loader.js) needs it
// before TypeScript can be loaded. machine.ts re-exports it.
import os from 'node:os';
import path from 'node:path';

/**
 * `RSG_HARNESS_CACHE`, else `$XDG_CACHE_HOME/register-services-gateway/harness`, else
 * `~/.cache/register-services-gateway/harness`; as root `<tmp>/register-services-gateway-harness`
 * (the embedded server runs as `postgres`, who cannot enter root's home).
 */
export function cacheFolder(env = process.env) {
  if (env.RSG_HARNESS_CACHE) return path.resolve(env.RSG_HARNESS_CACHE);
  if (process.getuid?.() === 0) return path.join(os.tmpdir(), 'register-services-gateway-harness');
  const base = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'register-services-gateway', 'harness');
}
