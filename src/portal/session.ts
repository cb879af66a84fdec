import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Pool } from 'pg';
import { csrfMatches, csrfToken } from '../identity/domain/csrf.ts';
import { findUserById } from '../identity/store/users.ts';
import { PROBLEM_ERRORS } from '../platform/http/error-codes.ts';
import { HttpError } from '../platform/http/errors.ts';
import { operatorsOnly, SignInRequired } from './errors.ts';
import {
  deleteExpiredSessions,
  deleteOtherSessions,
  deleteSession,
  insertSession,
  liveSession,
} from './store/sessions.ts';

/**
 * Portal sessions. The cookie carries 32 random bytes; the database keeps only their SHA-256, so a
 * leaked table opens no session. Signing in always starts a new session (new id), so an id planted
 * before sign-in is worth nothing after it. Forms carry a synchronizer token derived from the session
 * (an HMAC of its hash under the server secret), so the anonymous sign-in and sign-up forms get a
 * short anonymous session of their own.
 */
export interface PortalUser {
  id: string;
  email: string;
  name: string;
  isOperator: boolean;
}

export interface PortalContext {
  /** Hex SHA-256 of the session id; undefined when the request has no live session. */
  sessionHash: string | undefined;
  user: PortalUser | undefined;
  csrf: string | undefined;
}

const ANONYMOUS_TTL_SECONDS = 2 * 3600;
const COOKIE_VALUE = /^[A-Za-z0-9_-]{43}$/;
const contexts = new WeakMap<FastifyRequest, PortalContext>();

const hashOf = (id: string): Buffer => createHash('sha256').update(id, 'utf8').digest();

export class PortalSessions {
  readonly cookieName: string;

  constructor(
    private readonly pool: Pool,
    private readonly secret: string,
    private readonly ttlSeconds: number,
    private readonly secure: boolean,
  ) {
    // The __Host- prefix makes the browser refuse the cookie unless it is Secure, host-only and Path=/.
    this.cookieName = secure ? '__Host-rsg_portal' : 'rsg_portal';
  }

  private csrfFor(sessionHash: string): string {
    return csrfToken(this.secret, `portal:${sessionHash}`);
  }

  /** Reads the session cookie and remembers the result for the rest of the request. */
  async load(request: FastifyRequest): Promise<PortalContext> {
    const empty: PortalContext = { sessionHash: undefined, user: undefined, csrf: undefined };
    const id = request.cookies[this.cookieName];
    let context = empty;
    if (id && COOKIE_VALUE.test(id)) {
      const hash = hashOf(id);
      const row = await liveSession(this.pool, hash);
      if (row) {
        const sessionHash = hash.toString('hex');
        // The signed-in user, as identity has it.
        const user = row.userId ? await findUserById(this.pool, row.userId) : undefined;
        context = {
          sessionHash,
          csrf: this.csrfFor(sessionHash),
          user: user && { id: user.id, email: user.email, name: user.name, isOperator: user.isOperator },
        };
      }
    }
    contexts.set(request, context);
    return context;
  }

  private async create(reply: FastifyReply, userId: string | null, ttlSeconds: number): Promise<string> {
    const id = randomBytes(32).toString('base64url');
    const hash = hashOf(id);
    await deleteExpiredSessions(this.pool);
    await insertSession(this.pool, hash, userId, ttlSeconds);
    reply.setCookie(this.cookieName, id, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: this.secure,
      maxAge: ttlSeconds,
    });
    return hash.toString('hex');
  }

  /** Gives an anonymous visitor a session, so the form on this page can carry a CSRF token. */
  async ensure(request: FastifyRequest, reply: FastifyReply): Promise<PortalContext> {
    const current = portalContext(request);
    if (current.sessionHash) return current;
    const sessionHash = await this.create(reply, null, ANONYMOUS_TTL_SECONDS);
    const context = { sessionHash, user: undefined, csrf: this.csrfFor(sessionHash) };
    contexts.set(request, context);
    return context;
  }

  /** Signs in: the old session (anonymous or not) ends and a new id is issued. */
  async signIn(request: FastifyRequest, reply: FastifyReply, user: PortalUser): Promise<void> {
    await this.end(request);
    const sessionHash = await this.create(reply, user.id, this.ttlSeconds);
    contexts.set(request, { sessionHash, user, csrf: this.csrfFor(sessionHash) });
  }

  async signOut(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    await this.end(request);
    reply.clearCookie(this.cookieName, { path: '/', httpOnly: true, sameSite: 'lax', secure: this.secure });
    contexts.set(request, { sessionHash: undefined, user: undefined, csrf: undefined });
  }

  /** Ends every session of a user (after a password change), except the one given. */
  async endOthers(userId: string, keepHash: string | undefined): Promise<void> {
    await deleteOtherSessions(this.pool, userId, keepHash ? Buffer.from(keepHash, 'hex') : Buffer.alloc(0));
  }

  private async end(request: FastifyRequest): Promise<void> {
    const hash = portalContext(request).sessionHash;
    if (hash) await deleteSession(this.pool, Buffer.from(hash, 'hex'));
  }

  /** Every state-changing request must carry the token of its session. */
  verifyCsrf(request: FastifyRequest): void {
    const context = portalContext(request);
    const presented = (request.body as Record<string, unknown> | undefined)?.csrf;
    if (!context.sessionHash || !csrfMatches(this.secret, `portal:${context.sessionHash}`, presented)) {
      throw new HttpError(
        PROBLEM_ERRORS.csrf,
        'This form has expired or did not come from this site. Go back, reload the page and try again.',
      );
    }
  }
}

export function portalContext(request: FastifyRequest): PortalContext {
  return contexts.get(request) ?? { sessionHash: undefined, user: undefined, csrf: undefined };
}

export function requireUser(request: FastifyRequest): PortalUser {
  const user = portalContext(request).user;
  if (!user) throw new SignInRequired(request.method === 'GET' ? request.url : '/portal');
  return user;
}

export function requireOperator(request: FastifyRequest): PortalUser {
  const user = requireUser(request);
  if (!user.isOperator) throw operatorsOnly();
  return user;
}
