/**
 * Server-rendered pages without a template engine: `html` escapes every interpolated value unless it
 * is itself `html` output (a `SafeHtml`), so markup injection needs a deliberate `raw()`.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const escapeText = (text: string): string => text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === undefined || value === null || value === false) return '';
  return escapeText(String(value));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}

export const raw = (text: string): SafeHtml => new SafeHtml(text);

const STYLE = `
:root{--ink:#1b1f24;--muted:#5a6470;--line:#d6dbe1;--accent:#0b5cad;--bad:#b3261e;--bg:#f6f8fa}
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--ink);background:var(--bg)}
header{background:#fff;border-bottom:1px solid var(--line);padding:.75rem 1rem;display:flex;gap:1rem;align-items:center;flex-wrap:wrap}
header a{color:var(--ink);text-decoration:none;font-weight:600}nav{display:flex;gap:1rem;flex-wrap:wrap}nav a{font-weight:400;color:var(--accent)}
main{max-width:56rem;margin:1.5rem auto;padding:0 1rem}
.card{background:#fff;border:1px solid var(--line);border-radius:8px;padding:1.25rem;margin-bottom:1rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}input,select,textarea{width:100%;padding:.5rem;border:1px solid #9aa4ae;border-radius:6px;font:inherit}
button{font:inherit;padding:.5rem 1rem;border-radius:6px;border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer;margin-top:1rem}
button.secondary{background:#fff;color:var(--accent)}:focus-visible{outline:3px solid #f5a623;outline-offset:2px}
.error{color:var(--bad);font-weight:600}.muted{color:var(--muted)}code,.key{font-family:ui-monospace,monospace;word-break:break-all}
table{width:100%;border-collapse:collapse}th,td{text-align:left;padding:.4rem;border-bottom:1px solid var(--line);vertical-align:top}
@media (max-width:40rem){th,td{display:block}}
`;

export function page(title: string, body: SafeHtml, options: { nav?: SafeHtml } = {}): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} — Register Services Gateway</title><style>${raw(STYLE)}</style></head>
<body><header><a href="/portal">Register Services Gateway</a>${options.nav ?? ''}</header>
<main id="main">${body}</main></body></html>`.value;
}
