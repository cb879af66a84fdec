/**
 * Every register's OpenAPI document, in both environments, made without a database: the gateway's own
 * mount (gateway/http/mount.ts, with @fastify/swagger) on a Fastify instance that never listens, given a
 * stand-in runtime whose databases, caches and services are never asked anything (the routes only read
 * them when a request arrives, and none does but the documents'). The configuration is the process's own,
 * so a variable that changes a document (a per-user limit) changes the export as it changes the gateway.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { loadConfig } from '../src/config.ts';
import { HttpMetrics } from '../src/gateway/http/metrics.ts';
import { mountService } from '../src/gateway/http/mount.ts';
import { AnswerMarks } from '../src/platform/http/answer-marks.ts';
import { keyedUniform } from '../src/platform/random.ts';
import type { Runtime } from '../src/runtime.ts';
import {
  ENVIRONMENT_PREFIX,
  ENVIRONMENTS,
  type Environment,
  type ServiceId,
} from '../src/services/contract.ts';
import { SERVICES } from '../src/services/registry.ts';

export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, unknown>> };

/** `<register>.<environment>`, e.g. `ppsr.sandbox`: the exported file's stem. */
export type DocumentName = `${ServiceId}.${Environment}`;

/**
 * A stand-in that is anything asked of it: each property is another stand-in, each call returns one.
 * `fields` are the few real values mounting reads (a database's URL names its document folder).
 */
function standIn(fields: Record<string, unknown> = {}): unknown {
  return new Proxy(() => {}, {
    get: (_target, key) => {
      if (key === 'then') return undefined; // not a promise
      return typeof key === 'string' && key in fields ? fields[key] : standIn();
    },
    apply: () => standIn(),
  });
}

function standInRuntime(): Runtime {
  const environments = Object.fromEntries(
    ENVIRONMENTS.map((environment) => [
      environment,
      standIn({ url: `postgres://openapi-export.invalid/${environment}` }),
    ]),
  );
  const real: Partial<Runtime> = {
    config: loadConfig(),
    services: SERVICES,
    environments: environments as Runtime['environments'],
    keyedUniform: (key: string) => keyedUniform('openapi-export', key),
  };
  return new Proxy(real, {
    get: (target, key) => (key in target ? target[key as keyof Runtime] : standIn()),
  }) as Runtime;
}

/** The ten documents (five registers, two environments), as the gateway serves them. */
export async function exportDocuments(): Promise<Map<DocumentName, OpenApiDocument>> {
  // Mounting a register may name folders under the data folder (never writes there): a temporary one.
  const dataDir = mkdtempSync(path.join(tmpdir(), 'rsg-openapi-'));
  const previous = process.env.RSG_DATA_DIR;
  process.env.RSG_DATA_DIR = dataDir;
  const app = Fastify({ logger: false });
  try {
    app.decorateRequest('caller', undefined);
    app.decorateRequest('operation', undefined);
    const runtime = standInRuntime();
    const marks = new AnswerMarks(app.server);
    const metrics = new HttpMetrics(false);
    for (const environment of ENVIRONMENTS) {
      for (const service of SERVICES) await mountService(app, runtime, metrics, marks, environment, service);
    }
    await app.ready();
    const documents = new Map<DocumentName, OpenApiDocument>();
    for (const service of SERVICES) {
      for (const environment of ENVIRONMENTS) {
        const url = `${ENVIRONMENT_PREFIX[environment]}${service.path}/openapi.json`;
        const answer = await app.inject({ method: 'GET', url });
        if (answer.statusCode !== 200) throw new Error(`${url}: ${answer.statusCode} ${answer.body}`);
        documents.set(`${service.id}.${environment}`, answer.json());
      }
    }
    return documents;
  } finally {
    await app.close();
    if (previous === undefined) delete process.env.RSG_DATA_DIR;
    else process.env.RSG_DATA_DIR = previous;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A document's file text: two-space JSON and a final newline. */
export const documentText = (document: unknown): string => `${JSON.stringify(document, null, 2)}\n`;
