'use strict';
// `register-services-gateway/testing/jest`, for Jest test files: plain CommonJS, loaded by Jest's module
// system with no transform. `sandbox()` is this worker's sandbox (`JEST_WORKER_ID`), started by
// `global-setup.js` in Jest's process and described in `RSG_JEST_SANDBOXES`; its reset, snapshots,
// clock, test users and authorities are the gateway's operator routes (/sandbox/admin/…), called with
// the operator's sandbox key.

const ENV = 'RSG_JEST_SANDBOXES';
const REGISTERS = ['nzbn', 'market-rent', 'iponz', 'ppsr', 'disclose'];

/** A refused or failed admin call: the route's status and its problem+json body. */
class SandboxAdminError extends Error {
  constructor(method, path, status, problem, retryAfter = null) {
    const detail = problem && typeof problem === 'object' ? problem.detail || problem.title : undefined;
    super(`${method} ${path} answered ${status}${detail ? `: ${detail}` : ''}`);
    this.name = 'SandboxAdminError';
    this.status = status;
    this.problem = problem;
    /** The answer's `Retry-After` header, if it had one. */
    this.retryAfter = retryAfter;
  }
}

/** How long the helpers wait out 503s with `Retry-After` before the last one is thrown. */
const PATIENCE_MS = 30_000;

/** The wait a 503 asks for (`Retry-After` in seconds), or undefined when it is not one to wait out. */
function retryAfterMs(error) {
  if (!(error instanceof SandboxAdminError) || error.status !== 503) return undefined;
  const seconds = Number(error.retryAfter);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds, 10) * 1000 : undefined;
}

function described() {
  const text = process.env[ENV];
  if (!text) {
    throw new Error(
      `no sandboxes: ${ENV} is not set. Name register-services-gateway/testing/jest/global-setup and ` +
        '…/global-teardown as globalSetup and globalTeardown in the Jest configuration',
    );
  }
  let list;
  try {
    list = JSON.parse(text);
  } catch {
    throw new Error(`${ENV} is not the JSON the sandboxes' global setup writes`);
  }
  if (!Array.isArray(list) || list.length === 0) throw new Error(`${ENV} names no sandbox`);
  return list;
}

function workerIndex(count) {
  const text = process.env.JEST_WORKER_ID ?? '1';
  const id = Number(text);
  if (!Number.isInteger(id) || id < 1) throw new Error(`JEST_WORKER_ID "${text}" is not a worker number`);
  if (id > count) {
    throw new Error(
      `worker ${id} has no sandbox: the global setup started ${count} (maxWorkers when it ran)`,
    );
  }
  return id - 1;
}

const readingOf = (body) => ({ now: new Date(body.now), mode: body.mode, frozen: body.frozen });

function snapshotName(name) {
  if (typeof name !== 'string' || name.length === 0)
    throw new TypeError('a snapshot name is a non-empty string');
  return encodeURIComponent(name);
}

function bind(info) {
  const key = info.keys[REGISTERS.find((id) => info.keys[id])];
  if (typeof info.url !== 'string' || !key) throw new Error(`${ENV} holds a sandbox without a URL or a key`);

  /**
   * One admin call. `again`: a 503 with `Retry-After` (a database busy or restarting, another reset's
   * pause) is waited out and the call made again, for at most `PATIENCE_MS` in all; only for calls whose
   * repeat does no more than the first (a reset, a snapshot, a restore, a clock read or set).
   */
  async function admin(method, path, body, again = false) {
    const started = Date.now();
    for (;;) {
      try {
        return await once(method, path, body);
      } catch (error) {
        const wait = again ? retryAfterMs(error) : undefined;
        if (wait === undefined || Date.now() + wait - started > PATIENCE_MS) throw error;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  async function once(method, path, body) {
    const response = await fetch(`${info.url}/sandbox/admin${path}`, {
      method,
      headers: {
        'Ocp-Apim-Subscription-Key': key,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    let parsed;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    if (!response.ok) {
      const retryAfter = response.headers.get('retry-after');
      throw new SandboxAdminError(method, `/sandbox/admin${path}`, response.status, parsed, retryAfter);
    }
    return parsed;
  }

  return Object.freeze({
    /** The gateway's base URL, e.g. `http://127.0.0.1:41234`. */
    url: info.url,
    /** Each register's sandbox base URL. */
    registers: Object.freeze({ ...info.registers }),
    /** A subscription key of each register's sandbox product, held by an operator. */
    keys: Object.freeze({ ...info.keys }),
    /** The user who holds `keys`. */
    userId: info.userId,
    scale: info.scale,
    clock: Object.freeze({
      read: async () => readingOf(await admin('GET', '/clock', undefined, true)),
      advance: async (duration) => readingOf(await admin('POST', '/clock/advance', { duration })),
      set: async (time) =>
        readingOf(
          await admin('PUT', '/clock', { time: time instanceof Date ? time.toISOString() : time }, true),
        ),
    }),
    /** A new user with a password, authorities when asked, and a sandbox access token (`token`). */
    async user(options = {}) {
      const { email, authorities } = options;
      return admin('POST', '/users', {
        ...(email === undefined ? {} : { email }),
        ...(authorities === undefined ? {} : { authorities }),
      });
    },
    /** Grants a user (`{ userId }`) or an organisation (`{ organisationId }`) authority over a register object. */
    async grantAuthority(holder, object) {
      await admin('POST', '/authorities', { ...holder, ...object });
    },
    /** Every register back to its seeded state, the clock to where it was at the start; keys stay. */
    async reset() {
      await admin('POST', `/reset?scale=${encodeURIComponent(info.scale)}`, undefined, true);
    },
    /** Keeps the registers (and the clock) as they are now under `name`. */
    async snapshot(name) {
      await admin('PUT', `/snapshots/${snapshotName(name)}`, undefined, true);
    },
    /** Puts the registers and the clock back as they were when `name` was kept. */
    async restore(name) {
      await admin('POST', `/snapshots/${snapshotName(name)}/restore`, undefined, true);
    },
  });
}

let mine;

/** This worker's sandbox: the same object for every call in a test file. */
function sandbox() {
  if (!mine) {
    const list = described();
    mine = bind(list[workerIndex(list.length)]);
  }
  return mine;
}

module.exports = { sandbox, SandboxAdminError };
