import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

/**
 * The portal's only assets, served from memory: one stylesheet and one small script (copy buttons).
 * No CDN, no web fonts; the pages work without the script.
 */
const STYLE = `
:root{--ink:#1b1f24;--muted:#56606b;--line:#d6dbe1;--accent:#0b5cad;--bad:#b3261e;--good:#1e6b34;--bg:#f6f8fa}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--ink);background:var(--bg)}
a{color:var(--accent)}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem 1rem;z-index:2}
.skip:focus{left:.5rem}
header{background:#fff;border-bottom:1px solid var(--line);padding:.75rem 1rem;display:flex;gap:.5rem 1.25rem;align-items:center;flex-wrap:wrap}
header .brand{color:var(--ink);text-decoration:none;font-weight:700}
nav ul{display:flex;gap:.25rem 1rem;flex-wrap:wrap;list-style:none;margin:0;padding:0;align-items:center}
nav a[aria-current=page]{font-weight:700;text-decoration-thickness:3px}
nav form{display:inline;margin:0}nav button{margin:0;padding:.2rem .6rem}
main{max-width:60rem;margin:1.5rem auto;padding:0 1rem}
h1{font-size:1.6rem;margin-top:0}h2{font-size:1.25rem}
dt{font-weight:600}dd{margin:0 0 .5rem 1rem}
.card{background:#fff;border:1px solid var(--line);border-radius:8px;padding:1.25rem;margin-bottom:1rem;overflow-wrap:anywhere}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input,select,textarea{width:100%;padding:.5rem;border:1px solid #8a949e;border-radius:6px;font:inherit;background:#fff}
input[type=checkbox],input[type=radio]{width:auto;margin-right:.4rem}
fieldset{border:1px solid var(--line);border-radius:6px;margin:.75rem 0;padding:.5rem .75rem}
fieldset label{font-weight:400;margin:.25rem 0}legend{font-weight:600}
.hint{color:var(--muted);font-size:.9rem;margin:.1rem 0}
button{font:inherit;padding:.5rem 1rem;border-radius:6px;border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer;margin-top:1rem}
button.secondary{background:#fff;color:var(--accent)}button.danger{background:var(--bad);border-color:var(--bad)}
.inline{display:inline-block;margin-right:.5rem}
:focus-visible{outline:3px solid #f5a623;outline-offset:2px}
.error{color:var(--bad);font-weight:600}.ok{color:var(--good);font-weight:600}.muted{color:var(--muted)}
.notice{border-left:4px solid var(--accent);padding:.5rem .75rem;background:#eef5fc}
.secret{border-left:4px solid #f5a623;background:#fff8e6;padding:.75rem}.secret button{margin:.25rem 0 0 .25rem;padding:.2rem .7rem}
code,.key,pre{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;word-break:break-all}
pre{background:#f1f3f5;padding:.75rem;border-radius:6px;overflow-x:auto;white-space:pre-wrap;max-height:30rem}
.key{display:inline-block;background:#f1f3f5;padding:.2rem .4rem;border-radius:4px}
table{width:100%;border-collapse:collapse}th,td{text-align:left;padding:.4rem;border-bottom:1px solid var(--line);vertical-align:top}
.num{text-align:right;font-variant-numeric:tabular-nums}
.badge{display:inline-block;padding:0 .5rem;border-radius:999px;border:1px solid var(--line);font-size:.85rem}
.state-active,.state-approved{background:#e3f4e8}.state-requested{background:#fff3cd}.state-cancelled,.state-suspended,.state-declined{background:#f8d7da}
.op{border-top:1px solid var(--line);padding-top:.75rem;margin-top:.75rem}
.method{font-weight:700;text-transform:uppercase;margin-right:.5rem}
.chart{width:100%;height:auto;max-width:100%}
@media (max-width:40rem){table.stack th,table.stack td{display:block;border:0;padding:.15rem .4rem;text-align:left}table.stack thead{display:none}
table.stack tr{display:block;border-bottom:2px solid var(--line);padding:.5rem 0}
table.stack td[data-label]::before{content:attr(data-label) ": ";font-weight:600}header{padding:.5rem}}
`;

const SCRIPT = `
document.addEventListener('click', function (event) {
  var button = event.target.closest && event.target.closest('button[data-copy]');
  if (!button) return;
  var target = document.getElementById(button.getAttribute('data-copy'));
  if (!target || !navigator.clipboard) return;
  navigator.clipboard.writeText(target.textContent.trim()).then(function () {
    button.textContent = 'Copied';
  }, function () {});
});
`;

const version = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12);

export const STYLE_URL = `/portal/assets/portal.css?v=${version(STYLE)}`;
export const SCRIPT_URL = `/portal/assets/portal.js?v=${version(SCRIPT)}`;

export function assetRoutes(scope: FastifyInstance): void {
  const serve =
    (body: string, type: string) => async (_request: unknown, reply: import('fastify').FastifyReply) =>
      reply.type(type).header('Cache-Control', 'public, max-age=86400').send(body);
  scope.get('/assets/portal.css', serve(STYLE, 'text/css; charset=utf-8'));
  scope.get('/assets/portal.js', serve(SCRIPT, 'text/javascript; charset=utf-8'));
}
