import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { ENVIRONMENT_PREFIX, type ServiceDefinition } from '../../services/contract.ts';
import { type SampleCall, sampleCall } from '../domain/quick-start.ts';
import { type OperationEntry, operationsOf, referenceDocument } from '../domain/reference-document.ts';
import type { RecordedExamples } from '../examples/record.ts';
import type { PortalDeps } from '../index.ts';

/**
 * The services' own OpenAPI documents, fetched in-process (they can never drift from what clients
 * download): prepared for the reference with the recorded sandbox answers as examples, and read once per
 * process for the landing page's cards and the operation search.
 */

/** The service's own document; undefined when it publishes none. */
export async function serviceDocument(deps: PortalDeps, base: string): Promise<unknown> {
  const answer = await deps.app.inject({ method: 'GET', url: `${base}/openapi.json` });
  if (answer.statusCode !== 200) return undefined;
  try {
    return answer.json();
  } catch {
    return undefined;
  }
}

/** The committed sandbox answers (examples/record.ts), read once. */
let recorded: RecordedExamples | undefined;
export function sandboxAnswers(): RecordedExamples {
  recorded ??= JSON.parse(
    readFileSync(new URL('../examples/sandbox-answers.json', import.meta.url), 'utf8'),
  ) as RecordedExamples;
  return recorded;
}

/** The document the reference draws, with the service's recorded sandbox answers as examples. */
export async function preparedDocument(deps: PortalDeps, base: string, serviceId?: string) {
  return referenceDocument(
    await serviceDocument(deps, base),
    serviceId ? sandboxAnswers()[serviceId]?.answers : undefined,
  );
}

export interface Catalogue {
  service: ServiceDefinition;
  operations: OperationEntry[];
  /** A call that works against the sandbox: a GET whose required parameters all have examples. */
  sample: SampleCall | undefined;
}

const catalogues = new WeakMap<FastifyInstance, Promise<Catalogue[]>>();

/** Every service's operations, from its sandbox document, read once per process (per app). */
export function catalogue(deps: PortalDeps): Promise<Catalogue[]> {
  let found = catalogues.get(deps.app);
  if (!found) {
    found = Promise.all(
      deps.runtime.services.map(async (service) => {
        const document = await serviceDocument(deps, `${ENVIRONMENT_PREFIX.sandbox}${service.path}`);
        return { service, operations: operationsOf(document), sample: sampleCall(document) };
      }),
    );
    // A failure is not kept: the next request tries again.
    found.catch(() => catalogues.delete(deps.app));
    catalogues.set(deps.app, found);
  }
  return found;
}

/** The operations of every register holding all the words (of register, method, path, summary, group). */
export function searchOperations(registers: Catalogue[], words: string[]) {
  if (words.length === 0) return [];
  return registers.flatMap(({ service, operations }) =>
    operations
      .filter((operation) => {
        const text =
          `${service.title} ${service.id} ${operation.method} ${operation.path} ${operation.summary} ${operation.tag}`.toLowerCase();
        return words.every((word) => text.includes(word));
      })
      .map((operation) => ({ service, operation })),
  );
}
