/**
 * A progress bar on stderr for long imports: redrawn in place on a terminal (at most ten times a
 * second), one line per tenth of the file otherwise, so logs stay readable.
 */
export function progressBar(
  label: string,
  stream: NodeJS.WriteStream = process.stderr,
): { update: (done: number, total: number, rows: number) => void; finish: () => void } {
  let lastDraw = 0;
  let lastTenth = -1;
  let drawn = false;
  const width = 30;
  return {
    update(done, total, rows) {
      const fraction = total > 0 ? Math.min(1, done / total) : 1;
      const percent = Math.floor(fraction * 100);
      const text = `${label} ${percent.toString().padStart(3)}% ${rows.toLocaleString('en-NZ')} rows`;
      if (stream.isTTY) {
        const now = Date.now();
        if (now - lastDraw < 100 && fraction < 1) return;
        lastDraw = now;
        const filled = Math.round(fraction * width);
        stream.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${text}`);
        drawn = true;
      } else {
        const tenth = Math.floor(fraction * 10);
        if (tenth === lastTenth) return;
        lastTenth = tenth;
        stream.write(`${text}\n`);
      }
    },
    finish() {
      if (drawn) stream.write('\n');
    },
  };
}
