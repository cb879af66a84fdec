import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A CommonJS package loaded at its first use rather than when the gateway's modules load: for the
 * libraries only some requests or settings need (PDFs, mail over SMTP, Redis, the holiday calendar),
 * which would otherwise be most of a new process's start that serves none of them (a test suite's
 * worker, `rsg` commands). The first call loads it (synchronously); later calls return it.
 */
export function lazyRequire<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= require(name) as T;
    return loaded;
  };
}
