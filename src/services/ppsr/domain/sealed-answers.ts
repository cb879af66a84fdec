/**
 * Kept answers sealed (ours): a transaction's answer is kept to be replayed to a repeat of its request id
 * and shown by SEC_56, and a registration's answer holds its PINs. So every kept answer is encrypted,
 * AES-256-GCM with a subkey of the server secret (platform/server-keys.ts) and a fresh 96-bit nonce,
 * bound to its organisation and request id (the additional data: a sealed answer moved to another row
 * does not open). Stored as nonce ‖ ciphertext ‖ tag beside the key's id.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { ServerKeys } from '../../../platform/server-keys.ts';

const PURPOSE = 'ppsr kept answers';
const NONCE = 12;
const TAG = 16;

export interface SealedAnswer {
  keyId: string;
  sealed: Buffer;
}

/** Who an answer belongs to: a sealed answer opens only in its own transaction's row. */
export const answerBinding = (organisationId: string, requestId: string): string =>
  `${organisationId}\u0000${requestId}`;

export function sealAnswer(keys: ServerKeys, text: string, binding: string): SealedAnswer {
  const nonce = randomBytes(NONCE);
  const cipher = createCipheriv('aes-256-gcm', keys.current.derive(PURPOSE), nonce);
  cipher.setAAD(Buffer.from(binding, 'utf8'));
  const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return { keyId: keys.current.id, sealed: Buffer.concat([nonce, body, cipher.getAuthTag()]) };
}

/** The answer's text; throws when its key is not configured or the bytes or binding are not its own. */
export function openAnswer(keys: ServerKeys, answer: SealedAnswer, binding: string): string {
  const key = keys.find(answer.keyId);
  if (!key)
    throw new Error(`a kept answer is sealed with server key ${answer.keyId}, which is not configured`);
  const { sealed } = answer;
  const decipher = createDecipheriv('aes-256-gcm', key.derive(PURPOSE), sealed.subarray(0, NONCE));
  decipher.setAAD(Buffer.from(binding, 'utf8'));
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG));
  return Buffer.concat([
    decipher.update(sealed.subarray(NONCE, sealed.length - TAG)),
    decipher.final(),
  ]).toString('utf8');
}
