import type { DailyUsage } from '../../gateway/store/usage.ts';
import { html, type SafeHtml } from '../../platform/http/html.ts';
import type { MySubscription } from '../operations/subscriptions.ts';

/**
 * Usage per subscription: calls per day as bars, client errors (4xx) and throttled calls (429) as
 * lines, drawn as inline SVG on the server. The same numbers follow as a table, which is what screen
 * readers read (the picture is marked as one image with a summary).
 */
const WIDTH = 720;
const HEIGHT = 260;
const PAD = { left: 48, right: 12, top: 12, bottom: 36 };
const COLOURS = { calls: '#0b5cad', clientErrors: '#c26a00', throttled: '#b3261e' };

function niceMax(value: number): number {
  if (value <= 5) return 5;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * magnitude >= value) return step * magnitude;
  return 10 * magnitude;
}

export function usageChart(days: DailyUsage[]): SafeHtml {
  const top = niceMax(Math.max(0, ...days.map((d) => d.calls)));
  const plotWidth = WIDTH - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotWidth / Math.max(1, days.length);
  const y = (value: number) => PAD.top + plotHeight - (value / top) * plotHeight;
  const x = (index: number) => PAD.left + slot * index + slot / 2;
  const line = (pick: (d: DailyUsage) => number) =>
    days.map((d, i) => `${i === 0 ? 'M' : 'L'}${x(i).toFixed(1)},${y(pick(d)).toFixed(1)}`).join(' ');
  const labelEvery = Math.max(1, Math.ceil(days.length / 6));
  const totals = days.reduce(
    (sum, d) => ({
      calls: sum.calls + d.calls,
      clientErrors: sum.clientErrors + d.clientErrors,
      throttled: sum.throttled + d.throttled,
    }),
    { calls: 0, clientErrors: 0, throttled: 0 },
  );
  const summary = `Calls per day from ${days[0]?.day ?? ''} to ${days.at(-1)?.day ?? ''}: ${totals.calls} calls, ${totals.clientErrors} client errors (4xx), ${totals.throttled} throttled (429). The table below has every day.`;
  return html`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="chart-title chart-desc" xmlns="http://www.w3.org/2000/svg">
<title id="chart-title">Calls per day</title><desc id="chart-desc">${summary}</desc>
${[0, 0.2, 0.4, 0.6, 0.8, 1].map(
  (
    f,
  ) => html`<line x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(top * f)}" y2="${y(top * f)}" stroke="#d6dbe1"/>
<text x="${PAD.left - 6}" y="${y(top * f) + 4}" text-anchor="end" font-size="11" fill="#56606b">${Math.round(top * f)}</text>`,
)}
${days.map(
  (d, i) =>
    html`<rect x="${(x(i) - slot * 0.35).toFixed(1)}" y="${y(d.calls).toFixed(1)}" width="${(slot * 0.7).toFixed(1)}" height="${(PAD.top + plotHeight - y(d.calls)).toFixed(1)}" fill="${COLOURS.calls}"><title>${d.day}: ${d.calls} calls</title></rect>`,
)}
<path d="${line((d) => d.clientErrors)}" fill="none" stroke="${COLOURS.clientErrors}" stroke-width="2"/>
<path d="${line((d) => d.throttled)}" fill="none" stroke="${COLOURS.throttled}" stroke-width="2" stroke-dasharray="5 3"/>
${days.map((d, i) =>
  i % labelEvery === 0
    ? html`<text x="${x(i).toFixed(1)}" y="${HEIGHT - PAD.bottom + 16}" text-anchor="middle" font-size="11" fill="#56606b">${d.day.slice(5)}</text>`
    : '',
)}
<g font-size="11" fill="#1b1f24" transform="translate(${PAD.left},${HEIGHT - 6})">
<rect width="10" height="10" y="-9" fill="${COLOURS.calls}"/><text x="14">calls</text>
<line x1="70" x2="90" y1="-4" y2="-4" stroke="${COLOURS.clientErrors}" stroke-width="2"/><text x="94">4xx</text>
<line x1="140" x2="160" y1="-4" y2="-4" stroke="${COLOURS.throttled}" stroke-width="2" stroke-dasharray="5 3"/><text x="164">429</text>
</g></svg>`;
}

export function usageTable(days: DailyUsage[]): SafeHtml {
  return html`<table><caption>Calls per day (UTC)</caption>
<thead><tr><th scope="col">Day</th><th scope="col" class="num">Calls</th><th scope="col" class="num">4xx</th><th scope="col" class="num">429</th><th scope="col" class="num">5xx</th></tr></thead>
<tbody>${days.map(
    (d) =>
      html`<tr><th scope="row">${d.day}</th><td class="num">${d.calls}</td><td class="num">${d.clientErrors}</td><td class="num">${d.throttled}</td><td class="num">${d.serverErrors}</td></tr>`,
  )}</tbody></table>`;
}

/** A subscription's usage: the period links, the chart, the month's fees (`fees`), the table. */
export function usagePage(
  subscription: MySubscription,
  days: number,
  usage: DailyUsage[],
  fees: SafeHtml,
): SafeHtml {
  return html`<h1>Usage of ${subscription.productId}</h1>
<nav aria-label="Period"><p>Show the last ${[7, 30, 90].map(
    (n) =>
      html`<a href="/portal/subscriptions/${subscription.id}/usage?days=${n}"${n === days ? html` aria-current="page"` : ''}>${n} days</a> `,
  )}</p></nav>
<section class="card">${usageChart(usage)}</section>
${fees}
<section class="card">${usageTable(usage)}</section>`;
}
