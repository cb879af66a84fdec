import { createHash } from 'node:crypto';

/**
 * The portal's only assets, served from memory: one stylesheet and one small script (copy buttons).
 * No CDN, no web fonts; the pages work without the script. `routes/assets.ts` serves them.
 */
export const STYLE = `
:root{--ink:#1b1f24;--muted:#56606b;--line:#d6dbe1;--accent:#0b5cad;--bad:#b3261e;--good:#1e6b34;--bg:#f6f8fa}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--ink);background:var(--bg)}
a{color:var(--accent)}
.visually-hidden{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
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
.card{background:#fff;border:1px solid var(--line);border-radius:8px;padding:1.25rem;margin-bottom:1rem;overflow-wrap:break-word}
main.wide{max-width:80rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input,select,textarea{width:100%;padding:.5rem;border:1px solid #8a949e;border-radius:6px;font:inherit;background:#fff}
input[type=checkbox],input[type=radio]{width:auto;margin-right:.4rem}
fieldset{border:1px solid var(--line);border-radius:6px;margin:.75rem 0;padding:.5rem .75rem}
fieldset label{font-weight:400;margin:.25rem 0}legend{font-weight:600}
.hint{color:var(--muted);font-size:.9rem;margin:.1rem 0}
button{font:inherit;padding:.5rem 1rem;border-radius:6px;border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer;margin-top:1rem}
a.button{display:inline-block;text-decoration:none;padding:.4rem .8rem;border-radius:6px;border:1px solid var(--accent);margin:.25rem .25rem .25rem 0}
button.secondary,a.button.secondary{background:#fff;color:var(--accent)}button.danger{background:var(--bad);border-color:var(--bad)}
.inline{display:inline-block;margin-right:.5rem}
:focus-visible{outline:3px solid #f5a623;outline-offset:2px}
.error{color:var(--bad);font-weight:600}.ok{color:var(--good);font-weight:600}.muted{color:var(--muted)}
.notice{border-left:4px solid var(--accent);padding:.5rem .75rem;background:#eef5fc}
.secret{border-left:4px solid #f5a623;background:#fff8e6;padding:.75rem}.secret button{margin:.25rem 0 0 .25rem;padding:.2rem .7rem}
code,.key,pre{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;overflow-wrap:anywhere;word-break:normal}
.key{white-space:nowrap;font-size:.9rem;max-width:100%;overflow-x:auto;vertical-align:middle}code.path{white-space:normal;overflow-wrap:normal}code.path>span{white-space:nowrap}@media (min-width:40rem){td.path-cell code.path{white-space:nowrap}td.path-cell wbr{display:none}}
pre{background:#f1f3f5;padding:.75rem;border-radius:6px;overflow-x:auto;white-space:pre-wrap;max-height:30rem}
.key{display:inline-block;background:#f1f3f5;padding:.2rem .4rem;border-radius:4px}
@media (max-width:40rem){.key{display:block}}
table{width:100%;border-collapse:collapse;margin-bottom:1.5rem}th,td{text-align:left;padding:.4rem;border-bottom:1px solid var(--line);vertical-align:top}
.num{text-align:right;font-variant-numeric:tabular-nums}.nowrap{white-space:nowrap}
.badge{display:inline-block;padding:0 .5rem;border-radius:999px;border:1px solid var(--line);font-size:.85rem;white-space:nowrap}
.state-active,.state-approved{background:#e3f4e8}.state-requested{background:#fff3cd}.state-cancelled,.state-suspended,.state-declined{background:#f8d7da}
.op{border-top:1px solid var(--line);padding-top:.75rem;margin-top:.75rem}
.method{font-weight:700;text-transform:uppercase;margin-right:.5rem}
.chart{width:100%;height:auto;max-width:100%}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,22rem),1fr));gap:1rem}.cards .card{margin:0}
.register h3{margin-top:0}.register pre{font-size:.8rem;max-height:none;white-space:pre-wrap;overflow-wrap:anywhere}.label{font-weight:600;margin:.5rem 0 .1rem;font-size:.9rem}
.search .row{display:flex;gap:.5rem;flex-wrap:wrap}.search input{flex:1 1 14rem}.search button{margin-top:0}
/* Swagger UI, within the portal: colours with enough contrast, and the portal's own code blocks left alone. */
.reference .swagger-ui .info{margin:1rem 0}.reference .swagger-ui pre.version{background:transparent;padding:0;margin:0;color:#fff}
.reference .swagger-ui .info .title small.version-stamp{background:#3b6e00}.reference .swagger-ui .info .title small{background:#56606b}
.reference .swagger-ui .info a,.reference .swagger-ui .info .url{color:var(--accent)}
.reference .swagger-ui .opblock-get .opblock-summary-method{background:#1d63a8}.reference .swagger-ui .opblock-post .opblock-summary-method{background:#17744a}
.reference .swagger-ui .opblock-put .opblock-summary-method{background:#8f4e00}.reference .swagger-ui .opblock-delete .opblock-summary-method{background:#b3261e}
.reference .swagger-ui .opblock-patch .opblock-summary-method{background:#1f6f62}.reference .swagger-ui .opblock-head .opblock-summary-method{background:#6b3fa0}
.reference .swagger-ui .opblock-options .opblock-summary-method{background:#0d4f8a}
.reference .swagger-ui .btn.authorize{color:#17744a;border-color:#17744a}.reference .swagger-ui .btn.authorize span{color:#17744a}.reference .swagger-ui .btn.authorize svg{fill:#17744a}
.reference .swagger-ui .btn.cancel{color:#b3261e;border-color:#b3261e}.reference .swagger-ui .btn.execute{background:var(--accent);border-color:var(--accent)}
.reference .swagger-ui .parameter__in,.reference .swagger-ui .parameter__type{color:#4a525b}.reference .swagger-ui .download-contents{background:#41454f}
@media (max-width:40rem){.reference .swagger-ui .responses-table .response-col_links{display:none}.reference .swagger-ui .response-col_description{overflow-wrap:anywhere}}
.reference .swagger-ui button{margin-top:0}.reference .swagger-ui .wrapper{padding:0}.reference .swagger-ui .scheme-container{box-shadow:none;padding:.5rem 0}
@media (max-width:40rem){table.stack th,table.stack td{display:block;border:0;padding:.15rem .4rem;text-align:left}table.stack thead{display:none}
table.stack tr{display:block;border-bottom:2px solid var(--line);padding:.5rem 0}
table.stack td[data-label]::before{content:attr(data-label) ": ";font-weight:600}header{padding:.5rem}}
`;

export const SCRIPT = `
(function () {
  // A key shown once is kept in this browser only, so the API reference can fill it in; signing out forgets them.
  var PREFIX = 'rsg-portal-key:';
  try {
    document.querySelectorAll('[data-remember-key]').forEach(function (element) {
      window.localStorage.setItem(PREFIX + element.getAttribute('data-remember-key'), element.textContent.trim());
    });
  } catch (e) {}
  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (!form || form.getAttribute('action') !== '/portal/signout') return;
    try {
      for (var i = window.localStorage.length - 1; i >= 0; i--) {
        var name = window.localStorage.key(i);
        if (name && name.indexOf(PREFIX) === 0) window.localStorage.removeItem(name);
      }
    } catch (e) {}
  });
})();
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

export const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#0b5cad"/><path d="M8 9h16M8 16h16M8 23h10" stroke="#fff" stroke-width="3" stroke-linecap="round"/></svg>`;

const version = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12);

export const STYLE_URL = `/portal/assets/portal.css?v=${version(STYLE)}`;
export const SCRIPT_URL = `/portal/assets/portal.js?v=${version(SCRIPT)}`;

export const FAVICON_URL = `/portal/assets/favicon.svg?v=${version(FAVICON)}`;
