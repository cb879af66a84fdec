/**
 * Progress of an import or export on stderr: a bar redrawn in place on a terminal (at most ten times a
 * second), otherwise one line per tenth of the work, so logs stay readable. Once every byte is read the
 * records are still being counted: off a terminal the 100% line waits for the phase's end, so it gives
 * the phase's whole count.
 */
export interface Progress {
  /** `done` of `total` (bytes of the files; total 0 when unknown) and the records so far. */
  update(done: number, total: number, records: number): void;
  /** A line of its own (a committed batch), below the bar. */
  note(text: string): void;
  /** A new phase (checking, then importing): the bar starts again under this label. */
  phase(label: string): void;
  finish(): void;
}

export function progress(initial: string, stream: NodeJS.WriteStream = process.stderr): Progress {
  let label = initial;
  let lastDraw = 0;
  let lastTenth = -1;
  let drawn = false;
  let pending: string | undefined;
  const width = 30;
  const flush = () => {
    if (pending !== undefined) stream.write(`${pending}\n`);
    pending = undefined;
  };
  return {
    update(done, total, records) {
      const fraction = total > 0 ? Math.min(1, done / total) : 1;
      const percent = Math.floor(fraction * 100);
      const text = `${label} ${percent.toString().padStart(3)}% ${records.toLocaleString('en-NZ')} records`;
      if (stream.isTTY) {
        const now = Date.now();
        if (now - lastDraw < 100 && fraction < 1) return;
        lastDraw = now;
        const filled = Math.round(fraction * width);
        stream.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${text}`);
        drawn = true;
      } else {
        const tenth = Math.floor(fraction * 10);
        if (tenth === 10) {
          pending = text;
          return;
        }
        if (tenth === lastTenth) return;
        lastTenth = tenth;
        stream.write(`${text}\n`);
      }
    },
    note(text) {
      flush();
      if (drawn) stream.write('\n');
      drawn = false;
      stream.write(`${text}\n`);
    },
    phase(next) {
      flush();
      if (drawn) stream.write('\n');
      drawn = false;
      label = next;
      lastTenth = -1;
      lastDraw = 0;
    },
    finish() {
      flush();
      if (drawn) stream.write('\n');
      drawn = false;
    },
  };
}

/** Progress that shows nothing (library callers, tests). */
export const silentProgress: Progress = { update() {}, note() {}, phase() {}, finish() {} };
