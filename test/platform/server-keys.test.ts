import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.ts';
import { loadServerKeys, SERVER_SECRET_FILE, ServerKeys } from '../../src/platform/server-keys.ts';

const SECRET = 'a-server-secret-of-more-than-thirty-two-characters';
const OLDER = 'an-older-server-secret-of-more-than-thirty-two-chars';

const folders: string[] = [];
function folder(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'rsg-keys-'));
  folders.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the server secret', () => {
  it('is made on first start in the data folder, owner-only (0600), and read again after', () => {
    const dataDir = path.join(folder(), 'data');
    const first = loadServerKeys({}, dataDir);
    const file = path.join(dataDir, SERVER_SECRET_FILE);
    expect(first.source).toBe(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toMatch(/^[A-Za-z0-9_-]{43}$/m);
    expect(loadServerKeys({}, dataDir).keys.current.id).toBe(first.keys.current.id);
  });

  it('refuses a key file that group or others can read, naming the file and the fix', () => {
    const dataDir = folder();
    const file = path.join(dataDir, SERVER_SECRET_FILE);
    writeFileSync(file, `${SECRET}\n`);
    chmodSync(file, 0o644);
    expect(() => loadServerKeys({}, dataDir)).toThrow(ConfigError);
    expect(() => loadServerKeys({}, dataDir)).toThrow(
      `mode 644): make it the owner's alone (chmod 600 ${file})`,
    );
    chmodSync(file, 0o640);
    expect(() => loadServerKeys({}, dataDir)).toThrow(/readable by others/);
    chmodSync(file, 0o600);
    expect(loadServerKeys({}, dataDir).keys.current.id).toBe(new ServerKeys(SECRET).current.id);
  });

  it('comes from RSG_SERVER_SECRET first, and no key file is made then', () => {
    const dataDir = folder();
    const loaded = loadServerKeys({ RSG_SERVER_SECRET: SECRET, RSG_SERVER_SECRET_PREVIOUS: OLDER }, dataDir);
    expect(loaded.source).toBe('RSG_SERVER_SECRET');
    expect(loaded.keys.previous.map((k) => k.id)).toEqual([new ServerKeys(OLDER).current.id]);
    expect(() => statSync(path.join(dataDir, SERVER_SECRET_FILE))).toThrow();
  });

  it('reads a named key file (current first, previous after) and never makes one', () => {
    const dir = folder();
    const file = path.join(dir, 'keys');
    expect(() => loadServerKeys({ RSG_SERVER_SECRET_FILE: file }, dir)).toThrow(
      /^RSG_SERVER_SECRET_FILE: cannot read/,
    );
    writeFileSync(file, `# comment\n${SECRET}\n\n${OLDER}\n`, { mode: 0o600 });
    const keys = loadServerKeys({ RSG_SERVER_SECRET_FILE: file }, dir).keys;
    expect(keys.current.id).toBe(new ServerKeys(SECRET).current.id);
    expect(keys.find(new ServerKeys(OLDER).current.id)).toBeDefined();
  });

  it('refuses a short secret, naming the variable', () => {
    expect(() => loadServerKeys({ RSG_SERVER_SECRET: 'short' }, folder())).toThrow(
      /^RSG_SERVER_SECRET: each secret must be at least 32/,
    );
    expect(() =>
      loadServerKeys({ RSG_SERVER_SECRET: SECRET, RSG_SERVER_SECRET_PREVIOUS: 'x' }, folder()),
    ).toThrow(/^RSG_SERVER_SECRET_PREVIOUS:/);
  });

  it('derives a different key for each purpose and each secret', () => {
    const a = new ServerKeys(SECRET).current;
    const b = new ServerKeys(OLDER).current;
    expect(a.id).toMatch(/^[0-9a-f]{8}$/);
    expect(a.derive('one')).toHaveLength(32);
    expect(a.derive('one').equals(a.derive('two'))).toBe(false);
    expect(a.derive('one').equals(b.derive('one'))).toBe(false);
    expect(a.derive('one').equals(new ServerKeys(SECRET).current.derive('one'))).toBe(true);
  });
});
