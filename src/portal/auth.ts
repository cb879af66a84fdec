import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { passwordProblem, verifyPassword } from '../identity/domain/passwords.ts';
import { validEmail } from '../identity/domain/users.ts';
import { IDENTITY_ERRORS, UserError } from '../identity/errors.ts';
import { addUser, setPassword } from '../identity/operations/users.ts';
import { findUserByEmail, passwordHashOf } from '../identity/store/users.ts';
import { html, type SafeHtml } from '../platform/http/html.ts';
import type { PortalDeps } from './index.ts';
import { csrfField, field, sendPage } from './layout.ts';
import { portalContext, requireUser, safeNext } from './session.ts';

/** Sign up, sign in, sign out and the account page (change password). */
const LOGIN_RATE = { limit: 10, windowMs: 15 * 60_000 };
const SIGNUP_RATE = { limit: 20, windowMs: 60 * 60_000 };

interface FormState {
  email?: string;
  name?: string;
  next?: string;
  error?: string;
}

const errorLine = (error: string | undefined): SafeHtml | string =>
  error ? html`<p class="error" role="alert" id="form-error">${error}</p>` : '';

function signInForm(request: FastifyRequest, state: FormState): SafeHtml {
  return html`<section class="card" aria-labelledby="title">
<h1 id="title">Sign in</h1>
${errorLine(state.error)}
<form method="post" action="/portal/signin" ${state.error ? html`aria-describedby="form-error"` : ''}>
  ${csrfField(request)}<input type="hidden" name="next" value="${state.next ?? ''}">
  <label for="email">Email</label>
  <input id="email" name="email" type="email" required autocomplete="username" value="${state.email ?? ''}" autofocus>
  <label for="password">Password</label>
  <input id="password" name="password" type="password" required autocomplete="current-password">
  <button type="submit">Sign in</button>
</form>
<p>No account yet? <a href="/portal/signup${state.next ? `?next=${encodeURIComponent(state.next)}` : ''}">Sign up</a>.</p>
</section>`;
}

function signUpForm(request: FastifyRequest, state: FormState): SafeHtml {
  return html`<section class="card" aria-labelledby="title">
<h1 id="title">Create an account</h1>
<p class="muted">The same account signs you in here, on the authorization server's sign-in page and in applications that act for you.</p>
${errorLine(state.error)}
<form method="post" action="/portal/signup">
  ${csrfField(request)}<input type="hidden" name="next" value="${state.next ?? ''}">
  <label for="email">Email</label>
  <input id="email" name="email" type="email" required autocomplete="email" maxlength="254" value="${state.email ?? ''}" autofocus>
  <label for="name">Name</label>
  <input id="name" name="name" type="text" required autocomplete="name" maxlength="100" value="${state.name ?? ''}">
  <label for="password">Password</label>
  <p class="hint" id="password-hint">10 to 200 characters. A passphrase of several words is a good choice.</p>
  <input id="password" name="password" type="password" required minlength="10" maxlength="200" autocomplete="new-password" aria-describedby="password-hint">
  <button type="submit">Create account</button>
</form>
<p>Already have an account? <a href="/portal/signin">Sign in</a>.</p>
</section>`;
}

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
    const next = safeNext((request.query as Record<string, unknown>)?.next, '');
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
    const user = validEmail(email) ? await findUserByEmail(pool, email) : undefined;
    const hash = user ? await passwordHashOf(pool, user.id) : null;
    if (!user || !(await verifyPassword(password, hash))) return fail(401, 'The email or password is wrong.');
    await deps.sessions.signIn(request, reply, user);
    return reply.redirect(next || '/portal/subscriptions', 303);
  });

  scope.get('/signup', async (request, reply) => {
    const next = safeNext((request.query as Record<string, unknown>)?.next, '');
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
    if (!validEmail(email)) return fail(400, 'Email: enter an email address such as name@example.com.');
    if (!name || name.length > 100) return fail(400, 'Name: enter 1 to 100 characters.');
    const problem = passwordProblem(password);
    if (problem) return fail(400, `Password: ${problem}.`);
    const tooMany = await throttled(deps, reply, `portal-signup:${request.ip}`, SIGNUP_RATE);
    if (tooMany) return fail(429, tooMany);
    let user: Awaited<ReturnType<typeof addUser>>;
    try {
      // The password goes in with the user: one statement, so no account is left without it.
      user = await addUser(pool, { email, name, password });
    } catch (error) {
      if (error instanceof UserError && error.code === IDENTITY_ERRORS.userExists)
        return fail(409, 'An account with this email exists already. Sign in instead.');
      throw error;
    }
    await deps.sessions.signIn(request, reply, user);
    return reply.redirect(next || '/portal/subscriptions', 303);
  });

  scope.post('/signout', async (request, reply) => {
    await deps.sessions.signOut(request, reply);
    return reply.redirect('/portal', 303);
  });

  const accountPage = (request: FastifyRequest, hasPassword: boolean, message?: SafeHtml) => {
    const user = requireUser(request);
    return html`<h1>Account</h1>
<section class="card" aria-labelledby="who"><h2 id="who">You</h2>
<p>${user.name} — <code>${user.email}</code>${user.isOperator ? ' — operator' : ''}</p></section>
<section class="card" aria-labelledby="pw"><h2 id="pw">${hasPassword ? 'Change your password' : 'Set a password'}</h2>
${message ?? ''}
<form method="post" action="/portal/account/password">${csrfField(request)}
${
  hasPassword
    ? html`<label for="current">Current password</label>
<input id="current" name="current" type="password" required autocomplete="current-password">`
    : ''
}
<label for="password">New password</label>
<p class="hint" id="new-hint">10 to 200 characters. Your other signed-in sessions end when it changes.</p>
<input id="password" name="password" type="password" required minlength="10" maxlength="200" autocomplete="new-password" aria-describedby="new-hint">
<button type="submit">Save password</button></form></section>`;
  };

  scope.get('/account', async (request, reply) => {
    const user = requireUser(request);
    const hasPassword = (await passwordHashOf(pool, user.id)) !== null;
    return sendPage(request, reply, 'Account', accountPage(request, hasPassword));
  });

  scope.post('/account/password', async (request, reply) => {
    const user = requireUser(request);
    const hash = await passwordHashOf(pool, user.id);
    const show = (status: number, message: SafeHtml) =>
      sendPage(request, reply, 'Account', accountPage(request, hash !== null, message), status);
    const tooMany = await throttled(deps, reply, `portal-password:${user.id}`, LOGIN_RATE);
    if (tooMany) return show(429, html`<p class="error" role="alert">${tooMany}</p>`);
    if (hash !== null && !(await verifyPassword(field(request.body, 'current', 1000), hash))) {
      return show(401, html`<p class="error" role="alert">The current password is wrong.</p>`);
    }
    const password = field(request.body, 'password', 1000);
    const problem = passwordProblem(password);
    if (problem) return show(400, html`<p class="error" role="alert">New password: ${problem}.</p>`);
    await setPassword(pool, user.id, password);
    await deps.sessions.endOthers(user.id, portalContext(request).sessionHash);
    const done = html`<p class="ok" role="status">Your password was saved.</p>`;
    return sendPage(request, reply, 'Account', accountPage(request, true, done));
  });
}
