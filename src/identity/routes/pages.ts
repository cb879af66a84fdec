import { html, page } from '../../platform/http/html.ts';

/** The login and consent pages of the authorization server: plain forms, labelled, keyboard-usable. */
export function loginPage(input: { uid: string; csrf: string; email?: string; error?: string }): string {
  return page(
    'Sign in',
    html`<section class="card" aria-labelledby="title">
  <h1 id="title">Sign in</h1>
  <p class="muted">Sign in with your Register Services Gateway account to let the application act for you.</p>
  ${input.error ? html`<p class="error" role="alert">${input.error}</p>` : ''}
  <form method="post" action="/oauth2/interaction/${input.uid}/login" autocomplete="on">
    <input type="hidden" name="csrf" value="${input.csrf}">
    <label for="email">Email</label>
    <input id="email" name="email" type="email" required autocomplete="username" value="${input.email ?? ''}" autofocus>
    <label for="password">Password</label>
    <input id="password" name="password" type="password" required autocomplete="current-password">
    <button type="submit">Sign in</button>
  </form>
</section>`,
  );
}

const describeScope = (scope: string): string => {
  if (scope.endsWith('/.default')) return `Everything your subscriptions allow (${scope})`;
  const [service, access] = scope.split(':');
  if (access === 'read') return `Read ${service} data`;
  if (access === 'write') return `Change ${service} data you hold authority over`;
  if (scope === 'offline_access') return 'Stay signed in (refresh tokens)';
  if (scope === 'openid') return 'Know who you are';
  return scope;
};

export function consentPage(input: {
  uid: string;
  csrf: string;
  clientName: string;
  scopes: string[];
  resource: string;
}): string {
  return page(
    'Allow access',
    html`<section class="card" aria-labelledby="title">
  <h1 id="title">Allow ${input.clientName} to act for you?</h1>
  <p>It asks to:</p>
  <ul>${input.scopes.map((scope) => html`<li>${describeScope(scope)}</li>`)}</ul>
  ${input.resource ? html`<p class="muted">Environment: <code>${input.resource}</code></p>` : ''}
  <form method="post" action="/oauth2/interaction/${input.uid}/confirm">
    <input type="hidden" name="csrf" value="${input.csrf}">
    <button type="submit" name="decision" value="approve">Allow</button>
    <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
  </form>
</section>`,
  );
}
