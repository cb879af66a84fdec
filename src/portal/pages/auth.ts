import type { FastifyRequest } from 'fastify';
import { html, type SafeHtml } from '../../platform/http/html.ts';
import type { PortalUser } from '../session.ts';
import { csrfField } from './layout.ts';

/** The sign-in, sign-up and account pages. */
export interface FormState {
  email?: string;
  name?: string;
  next?: string;
  error?: string;
}

const errorLine = (error: string | undefined): SafeHtml | string =>
  error ? html`<p class="error" role="alert" id="form-error">${error}</p>` : '';

export function signInForm(request: FastifyRequest, state: FormState): SafeHtml {
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

export function signUpForm(request: FastifyRequest, state: FormState): SafeHtml {
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

/** The account page: who the user is, and the form that changes (or first sets) the password. */
export function accountPage(
  request: FastifyRequest,
  user: PortalUser,
  hasPassword: boolean,
  message?: SafeHtml,
): SafeHtml {
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
}
