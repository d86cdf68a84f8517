// Who spent what: the window's spend, tokens and cache savings by user
// path (a tree opened one level at a time), by key, by model and by
// provider (GET /admin/usage/breakdown). Each row opens the audit log
// filtered to it.

import { api, qs } from "./api.js";
import { h, fill, num, cost, card, table, tableRow, share, auditHref } from "./dom.js";

/** LIMIT is the most groups one breakdown read lists. */
const LIMIT = 200;

// breakdown reads one page of groups.
async function breakdown(by, days, extra) {
  return api("GET", "/admin/usage/breakdown" + qs(Object.assign({ by, days, limit: LIMIT }, extra)));
}

// segments counts the segments of a user path: "/" 0, "/a/b" 2.
function segments(p) {
  return p.split("/").filter(Boolean).length;
}

// figures are the columns every breakdown shows after the group's name;
// top is the largest cost and token count of the table, for the bars.
function figures(top) {
  return [
    { title: "Requests", num: true, cell: (r) => h("span", { "data-requests": r.requests }, num(r.requests)) },
    { title: "Input", num: true, phone: false, cell: (r) => num(r.input_tokens) },
    { title: "Output", num: true, phone: false, cell: (r) => num(r.output_tokens) },
    { title: "Tokens", cell: (r) => {
      const t = r.input_tokens + r.output_tokens;
      return h("div", { class: "figure-bar" }, h("span", { "data-tokens": t }, num(t)), share(t, top.tokens));
    } },
    { title: "Cost", cell: (r) => h("div", { class: "figure-bar" },
      h("span", { "data-cost": r.total_cost === null ? "" : r.total_cost }, r.total_cost === null ? "–" : cost(r.total_cost)),
      share(r.total_cost || 0, top.cost)) },
    { title: "Cache hits", num: true, phone: false, cell: (r) => h("span", { "data-hits": r.cache_hits }, num(r.cache_hits)) },
    { title: "Saved", num: true, phone: false, cell: (r) => h("span", { "data-avoided": r.cost_avoided }, cost(r.cost_avoided)) },
    { title: "Errors", num: true, phone: false, cell: (r) => num(r.errors_4xx + r.errors_5xx) },
  ];
}

function tops(rows) {
  let c = 0, t = 0;
  for (const r of rows) { c = Math.max(c, r.total_cost || 0); t = Math.max(t, r.input_tokens + r.output_tokens); }
  return { cost: c, tokens: t };
}

function failed(box, what, err) {
  fill(box, h("p", { class: "error", role: "alert" }, "Could not load " + what + ": " + err.message));
}

/**
 * renderSpend draws the breakdowns of the last days days into box.
 */
export async function renderSpend(box, days) {
  const cacheBox = h("div", { class: "cards", id: "spend-cache" });
  const pathBox = h("div", { id: "spend-user_path" });
  const keyBox = h("div", { id: "spend-key" });
  const modelBox = h("div", { id: "spend-model" });
  const providerBox = h("div", { id: "spend-provider" });
  fill(box,
    h("h2", {}, "Who spent what"), cacheBox,
    h("div", { class: "panel" }, h("h3", {}, "By user path"), pathBox),
    h("div", { class: "panel" }, h("h3", {}, "By key"), keyBox),
    h("div", { class: "panel" }, h("h3", {}, "By model"), modelBox),
    h("div", { class: "panel" }, h("h3", {}, "By provider"), providerBox));
  await Promise.all([
    pathTree(pathBox, days),
    flat(keyBox, "key", days, "Key", (r) => (r.group ? r.name || "deleted key " + r.group : "master key or none"),
      (r) => (r.group ? { key_id: r.group } : null)),
    flat(modelBox, "model", days, "Model", (r) => r.group || "–", (r) => (r.group ? { model: r.group } : null)),
    flat(providerBox, "provider", days, "Provider", (r) => r.group || "–", (r) => (r.group ? { provider: r.group } : null), cacheBox),
  ]);
}

// flat draws the breakdown by one dimension as a table; filter(row) is
// the audit log filter a row opens (null: the row opens nothing). With
// cacheBox, the totals of cache hits and savings go there.
async function flat(box, by, days, title, name, filter, cacheBox) {
  let page;
  try { page = await breakdown(by, days); } catch (err) { return failed(box, "the usage by " + by, err); }
  const rows = page.rows || [];
  const window = { start_date: page.start_date, end_date: page.end_date };
  const columns = [{ title, cell: (r) => h("span", { "data-name": r.group }, name(r)) }, ...figures(tops(rows))];
  const body = h("tbody", {});
  for (const r of rows) {
    const f = filter(r);
    const tr = tableRow(columns, r, f ? { onclick: () => { location.href = auditHref(Object.assign({}, f, window)); } } : {});
    tr.dataset.group = r.group;
    body.append(tr);
  }
  fill(box, tableOf(columns, body, rows.length, "Usage by " + by), page.next ? h("p", { class: "muted" }, "The " + LIMIT + " largest shown.") : null);
  if (cacheBox) {
    let hits = 0, avoided = 0, requests = 0;
    for (const r of rows) { hits += r.cache_hits; avoided += r.cost_avoided; requests += r.requests; }
    fill(cacheBox,
      card("Cache hits", num(hits), "cache_hits"),
      card("Cache hit rate", requests ? ((hits / requests) * 100).toFixed(1) + "%" : "—", "cache_hit_rate"),
      card("Saved by the cache", cost(avoided), "cost_avoided"));
  }
}

// tableOf wraps a tbody built row by row in the table helper's frame.
function tableOf(columns, body, n, label) {
  const wrap = table(columns, [], { label, empty: "No usage in this range." });
  if (n > 0) wrap.querySelector("tbody").replaceWith(body);
  return wrap;
}

// pathTree draws the usage by user path one level deep; opening a path
// reads the level below it (user_path filter, depth one more).
async function pathTree(box, days) {
  let page;
  try { page = await breakdown("user_path", days, { depth: 1 }); } catch (err) { return failed(box, "the usage by user path", err); }
  const window = { start_date: page.start_date, end_date: page.end_date };
  const rows = page.rows || [];
  const top = tops(rows);
  const columns = [{ title: "User path", cell: (r) => pathCell(r) }, ...figures(top)];
  const body = h("tbody", {});
  const open = new Map(); // tr -> its children's rows

  function pathCell(r) {
    const label = r.self ? r.group + " (itself)" : r.group;
    const canOpen = !r.self && r.group !== "/";
    const toggle = canOpen ? h("button", {
      type: "button", class: "secondary small tree-toggle", "aria-expanded": "false",
      "aria-label": "Show the paths under " + r.group, "data-action": "expand",
      onclick: (ev) => toggleRow(ev.currentTarget.closest("tr"), r, ev.currentTarget),
    }, "▸") : h("span", { class: "tree-leaf" });
    return h("span", { class: "tree-cell" }, toggle, h("span", { "data-name": r.group }, label));
  }

  function rowOf(r, level) {
    // A path's row lists its requests and those of the paths below it.
    const tr = tableRow(columns, r, { onclick: () => { location.href = auditHref(Object.assign({ user_path_under: r.group }, window)); } });
    tr.dataset.group = r.group;
    tr.dataset.level = level;
    tr.style.setProperty("--level", String(level));
    return tr;
  }

  function close(tr) {
    for (const kid of open.get(tr) || []) { close(kid); kid.remove(); }
    open.delete(tr);
  }

  async function toggleRow(tr, r, button) {
    if (open.has(tr)) {
      close(tr);
      button.setAttribute("aria-expanded", "false");
      button.textContent = "▸";
      return;
    }
    button.disabled = true;
    let sub;
    try {
      sub = await breakdown("user_path", days, { user_path: r.group, depth: segments(r.group) + 1 });
    } catch (err) {
      button.disabled = false;
      return failed(box, "the paths under " + r.group, err);
    }
    button.disabled = false;
    const level = Number(tr.dataset.level) + 1;
    const kids = (sub.rows || []).map((k) => rowOf(Object.assign({}, k, { self: k.group === r.group }), level));
    tr.after(...kids);
    open.set(tr, kids);
    button.setAttribute("aria-expanded", "true");
    button.textContent = "▾";
    tr.dataset.loaded = String(kids.length);
  }

  for (const r of rows) body.append(rowOf(r, 0));
  fill(box, tableOf(columns, body, rows.length, "Usage by user path"), page.next ? h("p", { class: "muted" }, "The " + LIMIT + " largest shown.") : null);
}
