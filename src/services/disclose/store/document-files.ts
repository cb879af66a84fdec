/**
 * The document store: the bytes of the register's documents, behind an interface (a filesystem folder
 * by default). Keys are the register's own (`<documentRecId>.pdf`), never a caller's text.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Environment } from '../../contract.ts';

/** A document is at most 20 MB (published). */
export const MAX_DOCUMENT_BYTES = 20 * 1024 * 1024;

export interface DocumentFiles {
  put(key: string, bytes: Buffer): Promise<void>;
  /** The bytes, or undefined when the store has none under the key. */
  read(key: string): Promise<Buffer | undefined>;
}

const SAFE_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,100}$/;

export function folderDocumentFiles(folder: string): DocumentFiles {
  const file = (key: string) => {
    if (!SAFE_KEY.test(key) || key.includes('..')) throw new RangeError(`not a document key: ${key}`);
    return path.join(folder, key);
  };
  return {
    async put(key, bytes) {
      if (bytes.length > MAX_DOCUMENT_BYTES) throw new RangeError('a document is at most 20 MB');
      await mkdir(folder, { recursive: true });
      const target = file(key);
      const temporary = `${target}.${process.pid}.tmp`;
      await writeFile(temporary, bytes);
      await rename(temporary, target);
    },
    async read(key) {
      try {
        return await readFile(file(key));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
  };
}

/**
 * The folder of one environment's documents: `RSG_DISCLOSE_DOCUMENTS_DIR/<environment>`, else under
 * `RSG_DATA_DIR` (default `data`).
 */
export function documentFolder(environment: Environment, env: NodeJS.ProcessEnv = process.env): string {
  const root = env.RSG_DISCLOSE_DOCUMENTS_DIR ?? path.join(env.RSG_DATA_DIR ?? 'data', 'disclose-documents');
  return path.join(root, environment);
}
