import type { FastifyReply, FastifyRequest } from 'fastify';
import { html, type SafeHtml } from '../../platform/http/html.ts';
import { DOWNLOAD_LINK_SECONDS } from '../domain/downloads.ts';
import { portalContext } from '../session.ts';
import { FAVICON_URL, SCRIPT_URL, STYLE_URL } from './assets.ts';

/**
 * The portal's layout: a skip link, a navigation that follows who is signed in, one local stylesheet
 * and one local script. Every page goes through `sendPage`, which also forbids caching (pages may hold
 * keys and secrets shown once).
 */
interface NavItem {
  href: string;
  label: string;
}

function navItems(request: FastifyRequest): NavItem[] {
  const user = portalContext(request).user;
  const items: NavItem[] = [
    { href: '/portal/products', label: 'Products' },
    { href: '/portal/try', label: 'Try it' },
  ];
  if (user) {
    items.push(
      { href: '/portal/subscriptions', label: 'My subscriptions' },
      { href: '/portal/sandbox', label: 'Sandbox access' },
      { href: '/portal/clients', label: 'OAuth clients' },
      { href: '/portal/billing', label: 'Billing' },
      { href: '/portal/bulk-data', label: 'Bulk data' },
      { href: '/portal/data-requests', label: 'Data requests' },
      { href: '/portal/mail', label: 'My mail' },
    );
    if (user.isOperator) {
      items.push(
        { href: '/portal/operator/approvals', label: 'Approvals' },
        { href: '/portal/operator/data-requests', label: 'Answer data requests' },
        { href: '/portal/operator/outbox', label: 'Outbox' },
      );
    }
    items.push({ href: '/portal/account', label: 'Account' });
  } else {
    items.push({ href: '/portal/signin', label: 'Sign in' }, { href: '/portal/signup', label: 'Sign up' });
  }
  return items;
}

function nav(request: FastifyRequest): SafeHtml {
  const here = request.url.split('?')[0];
  const context = portalContext(request);
  return html`<nav aria-label="Portal"><ul>
${navItems(request).map(
  (item) =>
    html`<li><a href="${item.href}"${here === item.href ? html` aria-current="page"` : ''}>${item.label}</a></li>`,
)}
${
  context.user
    ? html`<li><form method="post" action="/portal/signout">${csrfField(request)}<button type="submit" class="secondary">Sign out</button></form></li>`
    : ''
}
</ul></nav>`;
}

export function csrfField(request: FastifyRequest): SafeHtml {
  return html`<input type="hidden" name="csrf" value="${portalContext(request).csrf ?? ''}">`;
}

/** Extra stylesheets and scripts of one page (local addresses only; the CSP allows no other). */
export interface PageOptions {
  styles?: string[];
  scripts?: string[];
  /** A page wider than the reading column (the API reference). */
  wide?: boolean;
}

export function pageTitle(title: string): string {
  return title === 'Developer portal'
    ? 'Developer portal — Register Services Gateway'
    : `${title} — Developer portal — Register Services Gateway`;
}

export function portalPage(
  request: FastifyRequest,
  title: string,
  body: SafeHtml,
  options: PageOptions = {},
): string {
  const user = portalContext(request).user;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${pageTitle(title)}</title><link rel="icon" href="${FAVICON_URL}" type="image/svg+xml">
${(options.styles ?? []).map((href) => html`<link rel="stylesheet" href="${href}">`)}<link rel="stylesheet" href="${STYLE_URL}"><script src="${SCRIPT_URL}" defer></script>
${(options.scripts ?? []).map((src) => html`<script src="${src}" defer></script>`)}</head>
<body><a class="skip" href="#main">Skip to content</a>
<header><a class="brand" href="/portal">Register Services Gateway</a>${nav(request)}
${user ? html`<span class="muted">Signed in as ${user.email}${user.isOperator ? ' (operator)' : ''}</span>` : ''}</header>
<main id="main" tabindex="-1"${options.wide ? html` class="wide"` : ''}>${body}</main></body></html>`.value;
}

export function sendPage(
  request: FastifyRequest,
  reply: FastifyReply,
  title: string,
  body: SafeHtml,
  status = 200,
  options: PageOptions = {},
): FastifyReply {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .send(portalPage(request, title, body, options));
}

/**
 * An address or path as code that may break only after a slash, never mid-word: each segment is a span
 * that does not wrap (not even at its hyphens: `tenancy-services`), with a break opportunity between.
 */
export function pathCode(text: string): SafeHtml {
  // A break may come after a slash, and after a hyphen in a long segment (a published path has segments
  // of forty characters, wider than a phone).
  const parts = text
    .split(/(?<=\/)/)
    .flatMap((segment) => (segment.length > 24 ? segment.split(/(?<=-)/) : [segment]));
  return html`<code class="path">${parts.map((part, i) => (i === 0 ? html`<span>${part}</span>` : html`<wbr><span>${part}</span>`))}</code>`;
}

/** A page that refuses what was asked (a download link expired, made for another user), with a way back. */
export function refusalPage(
  request: FastifyRequest,
  reply: FastifyReply,
  refusal: { status: number; title: string; message: string; back: string },
): FastifyReply {
  const { status, title, message, back } = refusal;
  return sendPage(
    request,
    reply,
    title,
    html`<section class="card"><h1>${title}</h1><p role="alert">${message}</p><p><a href="${back}">Back</a></p></section>`,
    status,
  );
}

/** A refused download link: 410 when it expired, 403 when it was changed or not made here. */
export const linkRefusal = (refused: 'expired' | 'invalid', back: string) =>
  refused === 'expired'
    ? {
        status: 410,
        title: 'This download link has expired',
        message: `Download links live ${DOWNLOAD_LINK_SECONDS / 60} minutes. Open the page again for a new one.`,
        back,
      }
    : {
        status: 403,
        title: 'This download link is not valid',
        message: 'The link was changed or was not made by this portal. Open the page again for a new one.',
        back,
      };
