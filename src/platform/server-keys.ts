/**
 * The server secret: the key that stored secrets (the secured interests register's PIN verifiers and
 * kept answers) are keyed or encrypted with. It never lives in a database it protects: it comes from
 * `RSG_SERVER_SECRET` (or the file `RSG_SERVER_SECRET_FILE` names), else from the key file
 * `<RSG_DATA_DIR>/server-secret`, made on first start with mode 0600. A key file readable by group or
 * others is refused at start.
 *
 * Rotation: the current secret first, previous secrets after it (later lines of the key file, or
 * `RSG_SERVER_SECRET_PREVIOUS`, separated by commas or white space). Each secret has a short id (from the
 * secret, through HKDF) that what it keyed records, so verifying picks the key named; previous secrets are
 * kept only for that. Every use derives its own subkey (`ServerKey.derive(purpose)`, HKDF-SHA-256), so no
 * two purposes ever share key material.
 */
import { hkdfSync, randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../config.ts';

/** The key file's name in the data folder. */
export const SERVER_SECRET_FILE = 'server-secret';
/** A secret shorter than this is refused: a generated one is 43 characters (32 random bytes). */
export const MIN_SECRET_LENGTH = 32;
const SALT = 'rsg server secret';

export class ServerKey {
  /** Eight hex digits naming the secret, recorded beside what it keys (not a secret itself). */
  readonly id: string;
  private readonly secret: Buffer;
  private readonly subkeys = new Map<string, Buffer>();

  constructor(secret: string) {
    this.secret = Buffer.from(secret, 'utf8');
    this.id = Buffer.from(hkdfSync('sha256', this.secret, SALT, 'key id', 4)).toString('hex');
  }

  /** A 32-byte key for one purpose only (e.g. `ppsr pin verifier`). */
  derive(purpose: string): Buffer {
    let key = this.subkeys.get(purpose);
    if (!key) {
      key = Buffer.from(hkdfSync('sha256', this.secret, SALT, `purpose ${purpose}`, 32));
      this.subkeys.set(purpose, key);
    }
    return key;
  }
}

/** The current key, which keys everything new, and the previous ones, kept for verifying. */
export class ServerKeys {
  readonly current: ServerKey;
  readonly previous: readonly ServerKey[];

  constructor(current: string, previous: readonly string[] = []) {
    this.current = new ServerKey(current);
    const seen = new Set([this.current.id]);
    this.previous = previous
      .map((secret) => new ServerKey(secret))
      .filter((key) => !seen.has(key.id) && seen.add(key.id));
  }

  /** The key with this id, current or previous; undefined when it is not configured (any more). */
  find(id: string): ServerKey | undefined {
    return id === this.current.id ? this.current : this.previous.find((key) => key.id === id);
  }
}

type Env = Readonly<Record<string, string | undefined>>;

const secretsIn = (text: string): string[] =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));

function checked(variable: string, secrets: readonly string[]): readonly string[] {
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH || /\s/.test(secret)) {
      throw new ConfigError(
        variable,
        `each secret must be at least ${MIN_SECRET_LENGTH} characters without spaces (e.g. \`openssl rand -base64 32\`)`,
      );
    }
  }
  return secrets;
}

/** Makes the key file with a new secret, atomically: a second process starting at once reads the first's. */
function createKeyFile(file: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  const text = `# The server secret (first line); previous secrets below it while anything still names them.\n# Back it up apart from the database. See README.md, Operations.\n${randomBytes(32).toString('base64url')}\n`;
  writeFileSync(temporary, text, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temporary);
  }
}

function readKeyFile(variable: string, file: string, create: boolean): string[] {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || !create) {
      throw new ConfigError(variable, `cannot read the key file ${file}: ${(error as Error).message}`);
    }
    createKeyFile(file);
    stat = statSync(file);
  }
  if ((stat.mode & 0o077) !== 0) {
    const mode = (stat.mode & 0o777).toString(8).padStart(3, '0');
    throw new ConfigError(
      variable,
      `the key file ${file} is readable by others (mode ${mode}): make it the owner's alone (chmod 600 ${file})`,
    );
  }
  const secrets = secretsIn(readFileSync(file, 'utf8'));
  if (secrets.length === 0) throw new ConfigError(variable, `the key file ${file} holds no secret`);
  return secrets;
}

/** Where the secret came from, for the start-up line (never the secret). */
export interface LoadedServerKeys {
  keys: ServerKeys;
  source: string;
}

/** The server keys from the environment, else the data folder's key file (made when missing). */
export function loadServerKeys(env: Env, dataDir: string): LoadedServerKeys {
  const previous = checked(
    'RSG_SERVER_SECRET_PREVIOUS',
    (env.RSG_SERVER_SECRET_PREVIOUS ?? '').split(/[\s,]+/).filter(Boolean),
  );
  if (env.RSG_SERVER_SECRET) {
    const [current] = checked('RSG_SERVER_SECRET', [env.RSG_SERVER_SECRET]);
    return { keys: new ServerKeys(current!, previous), source: 'RSG_SERVER_SECRET' };
  }
  const named = env.RSG_SERVER_SECRET_FILE;
  const variable = named ? 'RSG_SERVER_SECRET_FILE' : 'RSG_DATA_DIR';
  const file = named ? path.resolve(named) : path.join(dataDir, SERVER_SECRET_FILE);
  const [current, ...older] = checked(variable, readKeyFile(variable, file, !named));
  return { keys: new ServerKeys(current!, [...older, ...previous]), source: file };
}
