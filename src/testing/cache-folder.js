// The machine's cache folder of the harness, in plain JavaScript: the loader (loader.js) needs it
// before TypeScript can be loaded. machine.ts re-exports it.
import { lstatSync, mkdirSync } from 'node:fs';
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

/**
 * The cache folder, made if missing, once it is known to be this user's alone: owned by this user and
 * writable by nobody else. It holds code the harness runs (modules/, compiled/) and a database server's
 * files, and as root it is in the shared temporary folder, where another user could have made it first.
 * Throws, naming the folder and what is wrong with it, otherwise.
 */
export function trustedCacheFolder(env = process.env) {
  const folder = cacheFolder(env);
  mkdirSync(folder, { recursive: true, mode: 0o755 });
  const stats = lstatSync(folder);
  const uid = process.getuid?.();
  const wrong = !stats.isDirectory()
    ? 'is not a folder'
    : uid !== undefined && stats.uid !== uid
      ? `belongs to user ${stats.uid}, not to this user (${uid})`
      : (stats.mode & 0o022) !== 0
        ? `may be written by others (mode ${(stats.mode & 0o777).toString(8)})`
        : undefined;
  if (wrong) {
    throw new Error(
      `the harness's cache folder ${folder} ${wrong}: its code and data cannot be trusted. ` +
        'Remove it, or name a folder of your own in RSG_HARNESS_CACHE',
    );
  }
  return folder;
}
