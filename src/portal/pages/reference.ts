import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyRequest } from 'fastify';
import type { Product } from '../../gateway/domain/products.ts';
import { html, type SafeHtml } from '../../platform/http/html.ts';
import { portalContext } from '../session.ts';
import { pathCode } from './layout.ts';
import { organisationNote } from './organisation-header.ts';

/**
 * The API reference: Swagger UI (npm `swagger-ui-dist`), served from the installed package under
 * /portal/assets/swagger-ui/ (no CDN: it works offline), drawing the document of
 * `/portal/products/:id/openapi.json` — the service's own `openapi.json`, fetched in-process and
 * prepared by `referenceDocument` (operations/reference.ts). `reference.js` starts it, and pre-fills the
 * signed-in user's key for the product when this browser kept it (see `portal.js`). `routes/assets.ts`
 * serves Swagger UI's files and `reference.js`.
 */
const require = createRequire(import.meta.url);
const DIST = path.dirname(require.resolve('swagger-ui-dist/package.json'));
export const SWAGGER_VERSION = (
  JSON.parse(readFileSync(path.join(DIST, 'package.json'), 'utf8')) as { version: string }
).version;

export interface Asset {
  body: Buffer;
  type: string;
}
const assets = new Map<string, Asset>();
export function swaggerAsset(name: 'swagger-ui-bundle.js' | 'swagger-ui.css'): Asset {
  let asset = assets.get(name);
  if (!asset) {
    let text = readFileSync(path.join(DIST, name), 'utf8');
    // The package ships no source maps we serve; a dangling reference only makes the console noisy.
    text = text
      .replace(/\n?\/\*# sourceMappingURL=[^*]*\*\/\s*$/, '')
      .replace(/\n?\/\/# sourceMappingURL=\S*\s*$/, '');
    asset = {
      body: Buffer.from(text),
      type: name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8',
    };
    assets.set(name, asset);
  }
  return asset;
}

export const SWAGGER_JS = `/portal/assets/swagger-ui/${SWAGGER_VERSION}/swagger-ui-bundle.js`;
export const SWAGGER_CSS = `/portal/assets/swagger-ui/${SWAGGER_VERSION}/swagger-ui.css`;

/** Starts Swagger UI on `#api-reference`; pre-fills the key and keeps try-it on this site. */
export const REFERENCE_SCRIPT = `
(function () {
  var root = document.getElementById('api-reference');
  if (!root || typeof SwaggerUIBundle !== 'function') return;
  var key = null;
  try {
    var user = root.getAttribute('data-user');
    if (user) key = window.localStorage.getItem('rsg-portal-key:' + user + ':' + root.getAttribute('data-product'));
  } catch (e) {}
  // The organisation a register's calls name in x-organisation (the signed-in user's), when it needs one.
  var organisation = root.getAttribute('data-organisation');
  var status = document.getElementById('reference-key-status');
  if (status && root.getAttribute('data-user')) {
    status.textContent = key
      ? 'Your key for this product is filled in: every "Try it out" call sends it.'
      : 'This browser has not kept a key for this product: get one under My subscriptions, or paste one with Authorize.';
  }
  var ui = SwaggerUIBundle({
    url: root.getAttribute('data-spec'),
    dom_id: '#api-reference',
    // Deep links would put a link inside each operation's toggle button (nested controls).
    deepLinking: false,
    validatorUrl: null,
    tryItOutEnabled: true,
    filter: true,
    displayRequestDuration: true,
    // Plain code blocks: the highlighter's colours fail contrast on its dark background.
    syntaxHighlight: false,
    defaultModelsExpandDepth: 0,
    docExpansion: 'list',
    plugins: [rawXmlExamples],
    requestInterceptor: function (request) {
      // Try-it only ever calls this gateway: the key is never sent elsewhere.
      var target = new URL(request.url, window.location.href);
      if (target.origin === window.location.origin && key && !request.headers['Ocp-Apim-Subscription-Key']) {
        request.headers['Ocp-Apim-Subscription-Key'] = key;
      }
      if (target.origin === window.location.origin && organisation && !request.headers['x-organisation']) {
        request.headers['x-organisation'] = organisation;
      }
      return request;
    },
    onComplete: function () {
      if (key) ui.preauthorizeApiKey('subscriptionKey', key);
      repair();
      openLinked();
      root.setAttribute('data-ready', 'true');
    },
  });
  // An XML example given as text (the IP office's sample SOAP envelopes) is shown and sent as it is: the
  // renderer would otherwise build XML from the schema and wrap the text in an element of its own.
  function rawXmlExamples() {
    return {
      afterLoad: function (system) {
        var fns = [system.fn, system.fn && system.fn.jsonSchema5, system.fn && system.fn.jsonSchema202012];
        fns.forEach(function (fn) {
          if (!fn || typeof fn.getXmlSampleSchema !== 'function') return;
          var original = fn.getXmlSampleSchema;
          fn.getXmlSampleSchema = function (schema, config, override) {
            if (typeof override === 'string' && /^s*</.test(override)) return override;
            return original.apply(this, arguments);
          };
        });
      },
    };
  }
  // A link from the operation search (#operation=<method> <path>) opens that operation and scrolls to it.
  function openLinked() {
    var match = /^#operation=([a-z]+)%20(.+)$/.exec(window.location.hash) || /^#operation=([a-z]+) (.+)$/.exec(decodeURIComponent(window.location.hash));
    if (!match) return;
    var path = decodeURIComponent(match[2]);
    var blocks = root.querySelectorAll('.opblock-' + match[1]);
    for (var i = 0; i < blocks.length; i++) {
      var shown = blocks[i].querySelector('.opblock-summary-path');
      if (shown && shown.getAttribute('data-path') === path) {
        var toggle = blocks[i].querySelector('.opblock-summary-control');
        if (toggle && !blocks[i].classList.contains('is-open')) toggle.click();
        blocks[i].scrollIntoView();
        if (toggle) toggle.focus();
        return;
      }
    }
  }
  // What the renderer leaves unnamed or out of keyboard reach, named and reachable (it redraws often).
  function repair() {
    root.querySelectorAll('select:not([aria-label]):not([aria-labelledby])').forEach(function (select) {
      // A label that only wraps the select (the servers' one) gives it no name.
      var named = Array.prototype.some.call(select.labels || [], function (label) {
        return label.textContent.replace(select.textContent, '').trim() !== '';
      });
      if (named) return;
      select.setAttribute('aria-label', select.id === 'servers' ? 'Server' : (select.getAttribute('data-name') || select.className || 'Choice'));
    });
    root.querySelectorAll('pre:not([tabindex]), .microlight:not([tabindex])').forEach(function (block) {
      block.setAttribute('tabindex', '0');
    });
    root.querySelectorAll('input:not([aria-label]):not([aria-labelledby])').forEach(function (input) {
      if (input.labels && input.labels.length) return;
      var name = input.getAttribute('placeholder') || input.getAttribute('title') || input.getAttribute('type') || 'value';
      input.setAttribute('aria-label', name);
    });
    root.querySelectorAll('textarea:not([aria-label])').forEach(function (area) {
      if (!(area.labels && area.labels.length)) area.setAttribute('aria-label', 'Request body');
    });
  }
  // Run at once on every redraw (only attributes change, and attributes are not observed: no loop).
  new MutationObserver(repair).observe(root, { childList: true, subtree: true });
})();
`;
export const REFERENCE_SCRIPT_URL = `/portal/assets/reference.js?v=${createHash('sha256').update(REFERENCE_SCRIPT).digest('hex').slice(0, 12)}`;

/** The reference's place on a product page; Swagger UI fills it. */
export function referenceSection(
  request: FastifyRequest,
  product: Product,
  base: string,
  /** For a register that needs `x-organisation`: the user's organisation in the product's environment. */
  organisation?: { value: string | undefined },
): SafeHtml {
  const user = portalContext(request).user;
  const next = `/portal/products/${product.id}`;
  const organisationPart = !organisation
    ? ''
    : product.environment === 'sandbox'
      ? organisationNote(request, organisation.value, next)
      : organisation.value
        ? html`<p class="hint">This register also needs <code>x-organisation</code>: your production organisation
<code class="organisation">${organisation.value}</code> is filled in.</p>`
        : html`<p class="hint">This register also needs <code>x-organisation</code>: the identifier of a production
organisation you belong to. ${user ? html`Ask an operator for one under <a href="/portal/sandbox#production">Sandbox access</a>.` : html`<a href="/portal/signin?next=${encodeURIComponent(next)}">Sign in</a>, then ask an operator for one under Sandbox access.`}</p>`;
  return html`<section class="card reference" aria-labelledby="reference"><h2 id="reference">API reference</h2>
<p class="muted">Every operation, with its parameters, bodies, responses and examples, and a <strong>Try it out</strong>
that calls this gateway at ${pathCode(base)}. Conditional requests, paging and error bodies are described once, at the top.</p>
${user ? html`<p id="reference-key-status" role="status" class="notice">Signed in: your key for this product is filled in when this browser kept it.</p>` : html`<p class="notice"><a href="/portal/signin?next=${encodeURIComponent(`/portal/products/${product.id}`)}">Sign in</a> to have your key filled in.</p>`}
<noscript><p>The interactive reference needs JavaScript. The document itself: <a href="${base}/openapi.json">${base}/openapi.json</a>.</p></noscript>
${organisationPart}
<div id="api-reference" data-spec="/portal/products/${product.id}/openapi.json" data-product="${product.id}" data-user="${user?.id ?? ''}"${organisation?.value ? html` data-organisation="${organisation.value}"` : ''}></div>
</section>`;
}
