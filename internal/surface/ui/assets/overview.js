// Overview: requests by status and provider latency from the audit log
// (GET /admin/audit/stats), tokens and cost per day from usage records
// (GET /admin/usage/daily), and the totals of the chosen range.

import { api, qs } from "./api.js";
import { h, fill, card, num, compact, cost, moneyAxis, ms, pct, seg, featureOff } from "./dom.js";
import { stackedBars, lines, seriesClass } from "./charts.js";

/** RANGES: value, label, days asked of the API, hourly buckets kept. */
const RANGES = [
  ["24h", "24 h", 2, 24],
  ["7d", "7 days", 7, 0],
  ["30d", "30 days", 30, 0],
  ["90d", "90 days", 90, 0],
];

/**
 * bucketLabel names a stats bucket: the start of an hour in the
 * browser's local time (with its minutes, for zones offset by a half hour),
 * or a day as the UTC date the gateway counted it under (day buckets
 * start at 00:00 UTC; read in a local time zone west of UTC that instant
 * falls on the day before), the same dates as the tokens and cost charts.
 */
export function bucketLabel(start, interval) {
  const d = new Date(start);
  const p = (n) => String(n).padStart(2, "0");
  return interval === "hour" ? p(d.getHours()) + ":" + p(d.getMinutes()) : p(d.getUTCMonth() + 1) + "-" + p(d.getUTCDate());
}

/** everyDay lists each UTC day from start to end (YYYY-MM-DD), with the
 * usage of the days that have some and zeros for the others. */
export function everyDay(start, end, daily) {
  const byDate = new Map(daily.map((d) => [d.date, d]));
  const out = [];
  const d = new Date(start + "T00:00:00Z");
  const last = new Date(end + "T00:00:00Z");
  if (isNaN(d) || isNaN(last)) return [...daily].reverse();
  for (; d <= last && out.length < 400; d.setUTCDate(d.getUTCDate() + 1)) {
    const key = d.toISOString().slice(0, 10);
    out.push(byDate.get(key) || { date: key, requests: 0, input_tokens: 0, output_tokens: 0, total_tokens: 0, cost: 0 });
  }
  return out;
}

/** rangeTotals sums the buckets kept and the provider latency over them. */
export function rangeTotals(stats, keep) {
  const from = keep > 0 ? Math.max(0, stats.buckets.length - keep) : 0;
  const buckets = stats.buckets.slice(from);
  const t = { requests: 0, s2: 0, s4: 0, s5: 0, other: 0, latN: 0, latSum: 0 };
  for (const b of buckets) {
    t.requests += b.requests; t.s2 += b.status_2xx; t.s4 += b.status_4xx; t.s5 += b.status_5xx; t.other += b.status_other;
  }
  for (const p of stats.provider_latency || []) {
    for (let i = from; i < p.requests.length; i++) {
      if (p.avg_duration_ms[i] !== null && p.requests[i] > 0) { t.latN += p.requests[i]; t.latSum += p.requests[i] * p.avg_duration_ms[i]; }
    }
  }
  return { from, buckets, t };
}

export async function render(root, ctx) {
  let range = "24h";
  const body = h("div", {});
  fill(root,
    h("div", { class: "toolbar" }, h("h1", { class: "grow" }, "Overview"),
      seg(RANGES.map((r) => [r[0], r[1]]), range, (v) => { range = v; load(); })),
    featureOff(ctx && ctx.config.features, "logging_enabled", "LOGGING_ENABLED", "The audit log is off: requests, status and latency are not recorded"),
    featureOff(ctx && ctx.config.features, "usage_enabled", "USAGE_ENABLED", "Usage tracking is off: tokens and cost are not recorded"),
    body);

  async function load() {
    const [, , days, keep] = RANGES.find((r) => r[0] === range);
    fill(body, h("p", { class: "muted" }, "Loading…"));
    let stats, daily, summary;
    try {
      [stats, daily, summary] = await Promise.all([
        api("GET", "/admin/audit/stats" + qs({ days })),
        api("GET", "/admin/usage/daily" + qs({ days, interval: "daily" })),
        api("GET", "/admin/usage/summary" + qs({ days })),
      ]);
    } catch (err) {
      fill(body, h("p", { class: "error", role: "alert" }, "Could not load the overview: " + err.message));
      return;
    }
    const { from, buckets, t } = rangeTotals(stats, keep);
    const labels = buckets.map((b) => bucketLabel(b.start, stats.interval));
    const usageNote = keep > 0 ? "today and yesterday (UTC days)" : "the last " + days + " days (UTC)";
    const days_ = everyDay(summary.start_date, summary.end_date, daily || []);
    fill(body,
      h("div", { class: "cards", id: "totals" },
        card("Requests", num(t.requests), "requests"),
        card("Success rate", pct(t.requests ? t.s2 / t.requests : null), "success_rate"),
        card("4xx", num(t.s4), "status_4xx"),
        card("5xx", num(t.s5), "status_5xx"),
        card("Avg provider latency", t.latN ? ms(t.latSum / t.latN) : "–", "latency"),
        card("Tokens", num(summary.total_tokens), "total_tokens"),
        card("Cost", cost(summary.total_cost), "total_cost")),
      h("p", { class: "muted" }, "Requests and latency: " + (keep > 0 ? "the last 24 hours" : "the last " + days + " days") +
        ", " + (stats.interval === "day" ? "daily" : "hourly") + " buckets. Tokens and cost: " + usageNote + "."),
      h("div", { class: "grid2" },
        h("div", { class: "panel", id: "chart-status" }, h("h2", {}, "Requests by status"),
          stackedBars(labels, [
            { name: "2xx", cls: "cok", values: buckets.map((b) => b.status_2xx) },
            { name: "4xx", cls: "cwarn", values: buckets.map((b) => b.status_4xx) },
            { name: "5xx", cls: "cbad", values: buckets.map((b) => b.status_5xx) },
            { name: "other", cls: "cother", values: buckets.map((b) => b.status_other) },
          ], compact, "Requests by status")),
        h("div", { class: "panel", id: "chart-latency" }, h("h2", {}, "Provider latency"),
          (stats.provider_latency || []).length === 0 ? h("p", { class: "muted" }, "No successful provider requests in this range.") :
            lines(labels, stats.provider_latency.map((p, i) => ({ name: p.provider, cls: seriesClass(i), values: p.avg_duration_ms.slice(from) })),
              (v) => ms(v), "Average latency of successful requests per provider")),
        h("div", { class: "panel", id: "chart-tokens" }, h("h2", {}, "Tokens per day"),
          stackedBars(days_.map((d) => d.date.slice(5)), [
            { name: "input", cls: "c1", values: days_.map((d) => d.input_tokens) },
            { name: "output", cls: "c2", values: days_.map((d) => d.output_tokens) },
          ], compact, "Tokens per day")),
        h("div", { class: "panel", id: "chart-cost" }, h("h2", {}, "Cost per day"),
          stackedBars(days_.map((d) => d.date.slice(5)), [{ name: "cost (USD)", cls: "c4", values: days_.map((d) => d.cost) }],
            moneyAxis, "Cost per day"))));
  }
  await load();
}
