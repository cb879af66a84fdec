import { randomUUID } from 'node:crypto';

/** The hex text of every byte, for the last two digits of an id. */
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/**
 * Request ids for requests that bring none: UUIDs in the version-4 layout (RFC 9562), made 256 at a time.
 * Each run of 256 shares one `randomUUID()` but for its last two hex digits, which count 00 to ff, so
 * an id costs a string join instead of a UUID of its own (about 50 against 200 ns here: docs/benchmarks.md,
 * issue 10). Ids stay unique across processes and restarts (each run has 114 random bits of its own)
 * and within a process (the count); they are names for log lines and answers, not secrets, so that
 * neighbours in a run can be told from one another is of no matter.
 */
export class RequestIds {
  private stem = '';
  private next = 256;

  take(): string {
    if (this.next === 256) {
      this.stem = randomUUID().slice(0, 34);
      this.next = 0;
    }
    return this.stem + HEX[this.next++];
  }
}
