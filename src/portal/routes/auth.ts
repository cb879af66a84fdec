import type { FastifyInstance, FastifyReply } from 'fastify';
import { html } from '../../platform/http/html.ts';
import { signUpProblem } from '../domain/accounts.ts';
import { safeNext } from '../domain/next.ts';
import type { PortalDeps } from '../index.ts';
import { changePassword, checkSignIn, createAccount, hasPassword } from '../operations/accounts.ts';
import { accountPage, signInForm, signUpForm } from '../pages/auth.ts';
import { sendPage } from '../pages/layout.ts';
import { portalContext, requireUser } from '../session.ts';
import { field, queryValue } from './forms.ts';

/** Sign up, sign in, sign out and the account page (change password), with their throttles. */
const LOGIN_RATE = { limit: 10, windowMs: 15 * 60_000 };
const SIGNUP_RATE = { limit: 20, windowMs: 60 * 60_000 };

/** The refusal of a throttled attempt (with `Retry-After` set), or undefined when it may go ahead. */
async function throttled(
  deps: PortalDeps,
  reply: FastifyReply,
  key: string,
  rate: { limit: number; windowMs: number },
): Promise<string | undefined> {
  const outcome = await deps.runtime.limits.check({ key, rate });
  if (outcome.allowed) return undefined;
  reply.header('Retry-After', String(Math.max(1, Math.ceil(outcome.retryAfterMs / 1000))));
  return `Too many attempts. Try again in ${Math.ceil(outcome.retryAfterMs / 60_000)} minutes.`;
}

export function authRoutes(scope: FastifyInstance, deps: PortalDeps): void {
  const pool = deps.runtime.gateway.pool;

  scope.get('/signin', async (request, reply) => {
    const next = safeNext(queryValue(request.query, 'next'), '');
    if (portalContext(request).user) return reply.redirect(next || '/portal', 303);
    await deps.sessions.ensure(request, reply);
    return sendPage(request, reply, 'Sign in', signInForm(request, { next }));
  });

  scope.post('/signin', async (request, reply) => {
    const email = field(request.body, 'email', 254).trim().toLowerCase();
    const password = field(request.body, 'password', 1000);
    const next = safeNext(field(request.body, 'next'), '');
    const fail = (status: number, error: string) =>
      sendPage(request, reply, 'Sign in', signInForm(request, { email, next, error }), status);
    const tooMany = await throttled(deps, reply, `portal-login:${email}|${request.ip}`, LOGIN_RATE);
    if (tooMany) return fail(429, tooMany);
    const user = await checkSignIn(pool, email, password);
    if (!user) return fail(401, 'The email or password is wrong.');
    await deps.sessions.signIn(request, reply, user);
    return reply.redirect(next || '/portal/subscriptions', 303);
  });

  scope.get('/signup', async (request, reply) => {
    const next = safeNext(queryValue(request.query, 'next'), '');
    if (portalContext(request).user) return reply.redirect(next || '/portal', 303);
    await deps.sessions.ensure(request, reply);
    return sendPage(request, reply, 'Sign up', signUpForm(request, { next }));
  });

  scope.post('/signup', async (request, reply) => {
    const email = field(request.body, 'email', 300).trim().toLowerCase();
    const name = field(request.body, 'name', 300).trim();
    const password = field(request.body, 'password', 1000);
    const next = safeNext(field(request.body, 'next'), '');
    const fail = (status: number, error: string) =>
      sendPage(request, reply, 'Sign up', signUpForm(request, { email, name, next, error }), status);
    const problem = signUpProblem({ email, name, password });
    if (problem) return fail(400, problem);
    const tooMany = await throttled(deps, reply, `portal-signup:${request.ip}`, SIGNUP_RATE);
    if (tooMany) return fail(429, tooMany);
    const user = await createAccount(pool, { email, name, password });
    if (!user) return fail(409, 'An account with this email exists already. Sign in instead.');
    await deps.sessions.signIn(request, reply, user);
    return reply.redirect(next || '/portal/subscriptions', 303);
  });

  scope.post('/signout', async (request, reply) => {
    await deps.sessions.signOut(request, reply);
    return reply.redirect('/portal', 303);
  });

  scope.get('/account', async (request, reply) => {
    const user = requireUser(request);
    const page = accountPage(request, user, await hasPassword(pool, user.id));
    return sendPage(request, reply, 'Account', page);
  });

  scope.post('/account/password', async (request, reply) => {
    const user = requireUser(request);
    const had = await hasPassword(pool, user.id);
    const refuse = (status: number, message: string) => {
      const alert = html`<p class="error" role="alert">${message}</p>`;
      return sendPage(request, reply, 'Account', accountPage(request, user, had, alert), status);
    };
    const tooMany = await throttled(deps, reply, `portal-password:${user.id}`, LOGIN_RATE);
    if (tooMany) return refuse(429, tooMany);
    const refused = await changePassword(pool, deps.sessions, user, {
      current: field(request.body, 'current', 1000),
      password: field(request.body, 'password', 1000),
      keepSession: portalContext(request).sessionHash,
    });
    if (refused) return refuse(refused.status, refused.message);
    const done = html`<p class="ok" role="status">Your password was saved.</p>`;
    return sendPage(request, reply, 'Account', accountPage(request, user, true, done));
  });
}
