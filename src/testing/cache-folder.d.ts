/** The machine's cache folder of the harness (cache-folder.js). */
export declare function cacheFolder(env?: NodeJS.ProcessEnv): string;
