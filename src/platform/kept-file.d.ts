/** Writes `text` to `file` whole or not at all; a failure is no loss, only no cache (kept-file.js). */
export declare function keepFile(file: string, text: string): void;
