// Usage: the summary of a range (GET /admin/usage/summary), usage per
// day, week or month as a chart and a table (GET /admin/usage/daily),
// usage per detected session (GET /admin/usage/sessions) and, with live
// logs on, each usage record as its request finishes, before storage has
// written it (GET /admin/live/logs).

import { api, qs } from "./api.js";
import { h, fill, card, num, compact, cost, moneyAxis, when, table, seg, featureOff } from "./dom.js";
import { stackedBars } from "./charts.js";
import { everyDay } from "./overview.js";
import { followLive } from "./live.js";
import { renderSpend } from "./spend.js";

const RANGES = [["7", "7 days"], ["30", "30 days"], ["90", "90 days"], ["365", "1 year"]];
const INTERVALS = [["daily", "Daily"], ["weekly", "Weekly"], ["monthly", "Monthly"]];

/** LIVE_ROWS is how many live usage records the page keeps, newest first. */
const LIVE_ROWS = 50;

const LIVE_COLUMNS = [
  { title: "Time", cell: (u) => when(u.timestamp) },
  { title: "User path", cell: (u) => u.user_path || "/" },
  { title: "Model", cell: (u) => u.model || "–" },
  { title: "Provider", cell: (u) => u.provider_name || "–", phone: false },
  { title: "Input", num: true, cell: (u) => num(u.input_tokens), phone: false },
  { title: "Output", num: true, cell: (u) => num(u.output_tokens), phone: false },
  { title: "Tokens", num: true, cell: (u) => num(u.total_tokens) },
  { title: "Cost", num: true, cell: (u) => (u.cache_type ? "cache hit" : u.total_cost === null || u.total_cost === undefined ? "–" : cost(u.total_cost)) },
];

export async function render(root, ctx) {
  let days = "30", interval = "daily";
  const body = h("div", {});
  const spendBox = h("div", { id: "spend" });
  const sessionsBox = h("div", { id: "sessions" });
  const liveState = h("span", { class: "muted", id: "live-state" });
  const liveSince = h("div", { id: "usage-live-since" });
  const liveBox = h("div", { id: "usage-live" });
  fill(root,
    h("div", { class: "toolbar" }, h("h1", { class: "grow" }, "Usage"),
      seg(RANGES, days, (v) => { days = v; load(); }),
      seg(INTERVALS, interval, (v) => { interval = v; load(); })),
    featureOff(ctx && ctx.config.features, "usage_enabled", "USAGE_ENABLED", "Usage tracking is off: no usage is recorded, so these figures do not grow"),
    body,
    spendBox,
    h("div", { class: "panel", id: "usage-live-panel" },
      h("div", { class: "toolbar" }, h("h2", { class: "grow" }, "Requests as they finish"), liveState), liveSince, liveBox),
    h("div", { class: "panel" }, h("h2", {}, "Sessions"), sessionsBox));

  // Live usage records: the newest first, and the totals of those that
  // finished after the figures above were read (storage may not have
  // written them yet, so the figures do not include them until the page
  // reads them again).
  let liveRows = [];
  let since = { requests: 0, tokens: 0, cost: 0 };

  function renderLive() {
    fill(liveBox, table(LIVE_COLUMNS, liveRows, { empty: "No request has finished since this page opened." }));
    fill(liveSince, since.requests === 0 ? null :
      h("div", { class: "toolbar" },
        h("span", { class: "grow muted", "data-count": since.requests },
          `${num(since.requests)} ${since.requests === 1 ? "request" : "requests"} (${num(since.tokens)} tokens, ${cost(since.cost)}) finished since the figures above were read.`),
        h("button", { type: "button", class: "secondary small", id: "usage-refresh", onclick: () => load() }, "Refresh")));
  }

  function liveUsage(u) {
    liveRows.unshift(u);
    if (liveRows.length > LIVE_ROWS) liveRows.length = LIVE_ROWS;
    since.requests++;
    since.tokens += Number(u.total_tokens) || 0;
    if (!u.cache_type) since.cost += Number(u.total_cost) || 0;
    renderLive();
  }

  async function load() {
    let summary, periods;
    try {
      [summary, periods] = await Promise.all([
        api("GET", "/admin/usage/summary" + qs({ days })),
        api("GET", "/admin/usage/daily" + qs({ days, interval })),
      ]);
    } catch (err) {
      fill(body, h("p", { class: "error", role: "alert" }, "Could not load usage: " + err.message));
      return;
    }
    periods = periods || [];
    since = { requests: 0, tokens: 0, cost: 0 };
    renderLive();
    const asc = interval === "daily" ? everyDay(summary.start_date, summary.end_date, periods) : [...periods].reverse();
    fill(body,
      h("div", { class: "cards", id: "usage-summary" },
        card("Requests", num(summary.total_requests), "total_requests"),
        card("Input tokens", num(summary.total_input_tokens), "total_input_tokens"),
        card("Output tokens", num(summary.total_output_tokens), "total_output_tokens"),
        card("Total tokens", num(summary.total_tokens), "total_tokens"),
        card("Cached input", num(summary.cached_input_tokens), "cached_input_tokens"),
        card("Cost", cost(summary.total_cost), "total_cost")),
      h("p", { class: "muted" }, `From ${summary.start_date} to ${summary.end_date} (UTC).`),
      h("div", { class: "grid2" },
        h("div", { class: "panel" }, h("h2", {}, "Tokens"), stackedBars(asc.map((p) => p.date), [
          { name: "input", cls: "c1", values: asc.map((p) => p.input_tokens) },
          { name: "output", cls: "c2", values: asc.map((p) => p.output_tokens) },
        ], compact, "Tokens per period")),
        h("div", { class: "panel" }, h("h2", {}, "Cost"), stackedBars(asc.map((p) => p.date), [
          { name: "cost (USD)", cls: "c4", values: asc.map((p) => p.cost) },
        ], moneyAxis, "Cost per period"))),
      h("div", { class: "panel", id: "usage-periods" }, table([
        { title: "Period", cell: (p) => p.date },
        { title: "Requests", num: true, cell: (p) => num(p.requests) },
        { title: "Input", num: true, cell: (p) => num(p.input_tokens), phone: false },
        { title: "Output", num: true, cell: (p) => num(p.output_tokens), phone: false },
        { title: "Tokens", num: true, cell: (p) => num(p.total_tokens) },
        { title: "Cost", num: true, cell: (p) => cost(p.cost) },
      ], periods, { empty: "No usage in this range.", label: "Usage per period" })));
    await Promise.all([renderSpend(spendBox, days), loadSessions(true)]);
  }

  let cursor = "";
  let sessionRows = [];
  async function loadSessions(first) {
    if (first) { cursor = ""; sessionRows = []; }
    let page;
    try {
      page = await api("GET", "/admin/usage/sessions" + qs({ days, limit: 50, cursor }));
    } catch (err) {
      fill(sessionsBox, h("p", { class: "error", role: "alert" }, "Could not load sessions: " + err.message));
      return;
    }
    sessionRows = sessionRows.concat(page.sessions || []);
    cursor = page.next_cursor || "";
    fill(sessionsBox, table([
      { title: "Session", cell: (s) => h("span", {}, h("code", {}, s.session_id.slice(0, 16)),
        s.limited ? h("span", { class: "bad", title: "Refused by the session limit " + s.limited + "; a new session id continues" }, " limited (" + s.limited + ")") : null) },
      { title: "User path", cell: (s) => s.user_path || "/" },
      { title: "Last seen", cell: (s) => when(s.last_seen), phone: false },
      { title: "Models", cell: (s) => (s.models || []).join(", "), phone: false },
      { title: "Requests", num: true, cell: (s) => num(s.requests) },
      { title: "Tokens", num: true, cell: (s) => num(s.total_tokens) },
      { title: "Cache hits", num: true, cell: (s) => num(s.cache_hits), phone: false },
      { title: "Cost", num: true, cell: (s) => cost(s.cost) },
    ], sessionRows, { empty: "No detected sessions in this range." }),
    cursor ? h("button", { type: "button", class: "secondary", onclick: () => loadSessions(false) }, "More sessions") : null);
  }

  await load();
  const features = (ctx && ctx.config.features) || {};
  followLive(liveState, features, features.usage_enabled === false && "Live: usage tracking off", {
    usage: liveUsage,
    // The records missed are gone from the stream: read the figures again.
    reset: () => load(),
  });
}
