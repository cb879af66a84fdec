/** The machine's cache folder of the harness (cache-folder.js). */
export declare function cacheFolder(env?: NodeJS.ProcessEnv): string;
/** The cache folder, made if missing; throws unless it is this user's own and writable by nobody else. */
export declare function trustedCacheFolder(env?: NodeJS.ProcessEnv): string;
