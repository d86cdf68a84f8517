// Audit logs: a filtered, paged table of audited requests (GET
// /admin/audit/log), one entry in detail (GET /admin/audit/log/{id}), its
// session as a conversation (GET /admin/audit/conversation) and, with live
// logs on, new requests at the top as they start and finish.

import { api, qs } from "./api.js";
import { h, fill, num, ns, when, statusCell, table, tableRow, pretty, cost, featureOff, DATE_INPUT } from "./dom.js";
import { followLive } from "./live.js";
import { conversation } from "./conversation.js";

const PAGE = 50;

/** LIST_KEY keeps, for this tab, the hash of the list an entry was opened from. */
const LIST_KEY = "modelgate.auditList";

/** STATUSES are the status filter's choices: value, label. */
const STATUSES = [["", "Any status"], ["2xx", "2xx"], ["4xx", "4xx"], ["5xx", "5xx"], ["4xx,5xx", "4xx and 5xx"]];

/** FILTERS are the list's filters, in the order the URL's hash names them. */
const FILTERS = ["search", "key_id", "user_path", "user_path_under", "model_contains", "model", "provider", "status", "error_code", "session_id", "start_date", "end_date", "days"];

/** keyName names the key an entry was made with. */
function keyName(e) {
  if (e.auth_key_name) return e.auth_key_name;
  if (e.auth_key_id) return e.auth_key_id;
  return e.auth_method === "master_key" ? "master key" : e.auth_method || "–";
}

const COLUMNS = [
  { title: "Time", cell: (e) => when(e.timestamp) },
  { title: "Key", cell: (e) => h("span", { "data-key": e.auth_key_id || "" }, keyName(e)) },
  { title: "User path", cell: (e) => e.user_path || "/" },
  { title: "Model", cell: (e) => e.requested_model + (e.resolved_model && e.resolved_model !== e.requested_model ? " → " + e.resolved_model : "") },
  { title: "Provider", cell: (e) => e.provider_name || e.provider || "–", phone: false },
  { title: "Status", cell: (e) => {
    const code = (e.data && e.data.error_code) || e.error_type;
    return h("span", {}, statusCell(e.status_code), code ? h("span", { class: "muted error-code" }, " " + code) : null);
  } },
  { title: "Tokens", num: true, cell: (e) => num((e.usage && e.usage.total_tokens) || 0) },
  { title: "Cost", num: true, cell: (e) => (e.cost ? h("span", { "data-cost": e.cost.total }, cost(e.cost.total)) : "–") },
  { title: "Duration", num: true, cell: (e) => (e.status_code ? ns(e.duration_ns) : "running"), phone: false },
  { title: "Cache", cell: (e) => e.cache_type || "–", phone: false },
];

/**
 * readFilters returns the filters and the offset the page URL names: in
 * its hash, or (older links) its query.
 */
function readFilters() {
  const from = new URLSearchParams(location.search);
  const hash = new URLSearchParams(location.hash.slice(1));
  const filters = {};
  for (const k of FILTERS) filters[k] = hash.get(k) || from.get(k) || "";
  return { filters, offset: Number(hash.get("offset") || from.get("offset")) || 0 };
}

export async function render(root, ctx) {
  const params = new URLSearchParams(location.search);
  if (params.get("id")) return detail(root, params.get("id"));
  let { filters, offset } = readFilters();
  const rows = new Map(); // id -> tr
  const listBox = h("div", { id: "audit-list" });
  const pager = h("div", { class: "toolbar" });
  const liveState = h("span", { class: "muted", id: "live-state" });
  const chips = h("div", { class: "toolbar", id: "audit-chips" });
  const inputs = {};
  const field = (k, label, attrs = {}) => {
    inputs[k] = h("input", Object.assign({ name: k, value: filters[k], placeholder: label, "aria-label": label }, attrs));
    return inputs[k];
  };
  inputs.status = h("select", { name: "status", "aria-label": "Status class" }, STATUSES.map(([v, l]) => h("option", { value: v }, l)));
  inputs.key_id = h("select", { name: "key_id", "aria-label": "Key" }, h("option", { value: "" }, "Any key"));
  const form = h("form", { class: "toolbar filters", id: "audit-filters", onsubmit: (ev) => { ev.preventDefault(); apply(); } },
    field("search", "Search"), inputs.key_id, field("user_path", "User path"), field("model_contains", "Model"), field("provider", "Provider"),
    inputs.status, field("error_code", "Error code"), field("session_id", "Session"),
    field("start_date", "From yyyy-mm-dd", DATE_INPUT), field("end_date", "To yyyy-mm-dd", DATE_INPUT),
    h("button", { type: "submit" }, "Filter"),
    h("button", { type: "button", class: "secondary", onclick: () => { for (const k in inputs) inputs[k].value = ""; for (const k of FILTERS) filters[k] = ""; apply(); } }, "Clear"));
  const features = ctx.config.features || {};
  const off = featureOff(features, "logging_enabled", "LOGGING_ENABLED", "The audit log is off: requests are not recorded, so no new entry appears here");
  fill(root, h("div", { class: "toolbar" }, h("h1", { class: "grow" }, "Audit logs"), liveState), off, form, chips, listBox, pager);
  showFilters();
  loadKeys();

  // loadKeys lists the managed keys in the key filter, by name.
  async function loadKeys() {
    let res;
    try { res = await api("GET", "/admin/auth-keys", undefined, { quiet: true }); } catch { res = { keys: [] }; }
    const keys = res.keys || [];
    if (filters.key_id && !keys.some((k) => k.id === filters.key_id)) keys.push({ id: filters.key_id, name: filters.key_id });
    for (const k of keys) inputs.key_id.append(h("option", { value: k.id }, k.name));
    inputs.key_id.value = filters.key_id;
  }

  // showFilters sets the inputs from filters, and lists as removable
  // chips the filters that have no input (a path and those below it, a
  // model's exact name or a number of days, from a usage page link).
  function showFilters() {
    for (const k in inputs) inputs[k].value = filters[k] || "";
    const chip = { user_path_under: (v) => "under " + v, model: (v) => "model = " + v, days: (v) => "last " + v + " days" };
    fill(chips, Object.keys(chip).filter((k) => filters[k]).map((k) =>
      h("button", { type: "button", class: "secondary small chip-filter", "data-filter": k, "aria-label": "Remove the filter " + chip[k](filters[k]),
        onclick: () => { filters[k] = ""; apply(); } }, chip[k](filters[k]) + " ✕")));
  }

  window.addEventListener("hashchange", () => {
    ({ filters, offset } = readFilters());
    showFilters();
    load();
  });

  function filtered() {
    return Object.values(filters).some((v) => v !== "");
  }

  function apply() {
    for (const k in inputs) filters[k] = inputs[k].value.trim();
    offset = 0;
    syncURL();
    showFilters();
    load();
  }

  // syncURL keeps the filters and the offset in the URL's hash, so that
  // they survive opening an entry and coming back.
  function syncURL() {
    const q = qs(Object.assign({}, filters, { offset: offset || "" }));
    history.replaceState(null, "", location.pathname + (q ? "#" + q.slice(1) : ""));
  }

  // open shows an entry; its back link returns to this list as filtered.
  const open = (e) => {
    sessionStorage.setItem(LIST_KEY, location.hash);
    location.href = "/admin/dashboard/audit?id=" + encodeURIComponent(e.id);
  };

  // The footer's figures: the entries matching, and how many this page
  // shows; live rows added at the top count in both.
  let total = 0;
  let shown = 0;

  function renderPager() {
    const last = offset + shown;
    fill(pager,
      h("span", { class: "grow muted", id: "audit-total", "data-total": total }, total ? `${num(offset + 1)}–${num(last)} of ${num(total)}` : "0 entries"),
      h("button", { type: "button", class: "secondary", disabled: offset === 0, onclick: () => { offset = Math.max(0, offset - PAGE); syncURL(); load(); } }, "Newer"),
      h("button", { type: "button", class: "secondary", disabled: last >= total, onclick: () => { offset += PAGE; syncURL(); load(); } }, "Older"));
  }

  async function load() {
    let page;
    try {
      page = await api("GET", "/admin/audit/log" + qs(Object.assign({ limit: PAGE, offset }, filters)));
    } catch (err) {
      fill(listBox, h("p", { class: "error", role: "alert" }, "Could not load the audit log: " + err.message));
      fill(pager);
      return;
    }
    if (page.entries.length === 0 && offset > 0) {
      // A page past the end (an old link, or entries gone since): show the
      // last page there is. The new offset is smaller, so this ends.
      offset = page.total > 0 ? Math.floor((page.total - 1) / PAGE) * PAGE : 0;
      syncURL();
      return load();
    }
    rows.clear();
    const t = table(COLUMNS, page.entries, { onclick: open, empty: "No audit entries match.", label: "Audit entries" });
    const trs = t.querySelectorAll("tbody tr");
    page.entries.forEach((e, i) => { trs[i].dataset.id = e.id; rows.set(e.id, trs[i]); });
    fill(listBox, t);
    total = page.total;
    shown = Math.min(page.entries.length, Math.max(0, total - offset));
    renderPager();
  }

  function live(p) {
    if (offset !== 0 || filtered()) return;
    const tbody = listBox.querySelector("tbody");
    if (!tbody) return;
    const tr = tableRow(COLUMNS, p, { onclick: open });
    tr.dataset.id = p.id;
    tr.dataset.phase = p.phase;
    const old = rows.get(p.id);
    if (old) old.replaceWith(tr);
    else {
      const empty = tbody.querySelector("td[colspan]");
      if (empty) empty.parentElement.remove();
      tr.classList.add("fresh");
      tbody.prepend(tr);
      // A new entry: the page keeps PAGE rows, the oldest leaving it.
      total++;
      const trs = tbody.querySelectorAll("tr");
      if (trs.length > PAGE) {
        const gone = trs[trs.length - 1];
        rows.delete(gone.dataset.id);
        gone.remove();
      } else {
        shown++;
      }
      renderPager();
    }
    rows.set(p.id, tr);
  }

  await load();
  followLive(liveState, features, off && "Live: audit log off", { audit: live, reset: () => load() });
}

/** detail shows one entry: fields, usage, attempts, headers and bodies. */
async function detail(root, id) {
  let e;
  try {
    e = await api("GET", "/admin/audit/log/" + encodeURIComponent(id));
  } catch (err) {
    fill(root, h("p", { class: "error", role: "alert" }, "Could not load entry " + id + ": " + err.message),
      h("a", { href: "/admin/dashboard/audit" }, "Back to the audit log"));
    return;
  }
  const d = e.data || {};
  const u = e.usage || {};
  const dl = (pairs) => h("dl", { class: "detail" }, pairs.filter((p) => p[1] !== undefined && p[1] !== "" && p[1] !== null).map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
  const convBox = h("div", { id: "conversation" });
  const attempts = d.attempts || [];
  fill(root,
    h("div", { class: "toolbar" }, h("a", { href: "/admin/dashboard/audit" + (sessionStorage.getItem(LIST_KEY) || ""), id: "back-to-list" }, "← Audit logs"), h("h1", { class: "grow" }, "Request " + e.id)),
    h("div", { class: "panel", id: "entry" }, dl([
      ["Time", when(e.timestamp)], ["Status", statusCell(e.status_code)], ["Request", e.method + " " + e.path],
      ["Duration", ns(e.duration_ns)], ["Stream", e.stream ? "yes" : "no"],
      ["Requested model", e.requested_model], ["Resolved model", e.resolved_model],
      ["Provider", (e.provider_name || "") + (e.provider ? " (" + e.provider + ")" : "")],
      ["User path", e.user_path], ["Session", e.session_id], ["Key", keyName(e) + (e.auth_key_id && e.auth_key_name ? " (" + e.auth_key_id + ")" : "")],
      ["Client", e.client_ip], ["Request id", e.request_id], ["Cache", e.cache_type], ["Error", [e.error_type, d.error_code, d.error_message].filter(Boolean).join(" · ")],
    ])),
    h("div", { class: "panel", id: "usage" }, h("h2", {}, "Usage and cost"), dl([
      ["Input tokens", num(u.input_tokens)], ["Output tokens", num(u.output_tokens)], ["Total tokens", num(u.total_tokens)],
      ["Cached input tokens", num(u.cached_input_tokens)], ["Cache write tokens", num(u.cache_write_input_tokens)],
    ]), costOf(e.cost)),
    h("div", { class: "panel" }, h("h2", {}, "Attempts"), table([
      { title: "#", cell: (a) => a.seq },
      { title: "Kind", cell: (a) => a.kind || "–" },
      { title: "Provider", cell: (a) => a.provider_name || "–" },
      { title: "Model", cell: (a) => a.model || "–" },
      { title: "Status", cell: (a) => statusCell(a.status_code) },
      { title: "Duration", num: true, cell: (a) => ns(a.duration_ns) },
      { title: "Error", cell: (a) => [a.error_type, a.error_code, a.error_message].filter(Boolean).join(" · ") || "–" },
    ], attempts, { empty: "No upstream attempt (answered by the gateway)." })),
    h("div", { class: "grid2" },
      h("div", { class: "panel" }, h("h2", {}, "Request headers"), pretty(d.request_headers, "Request headers")),
      h("div", { class: "panel" }, h("h2", {}, "Response headers"), pretty(d.response_headers, "Response headers"))),
    h("div", { class: "panel", id: "request-body" }, h("h2", {}, "Request body"), d.request_body_too_big_to_handle ? h("p", { class: "muted" }, "Too big to keep.") : pretty(d.request_body, "Request body")),
    h("div", { class: "panel", id: "response-body" }, h("h2", {}, "Response body"), d.response_body_too_big_to_handle ? h("p", { class: "muted" }, "Too big to keep.") : pretty(d.response_body, "Response body")),
    h("div", { class: "panel" }, h("div", { class: "toolbar" }, h("h2", { class: "grow" }, "Conversation"),
      h("button", { type: "button", id: "show-conversation", onclick: () => conversation(convBox, e.id) }, "Show the session")), convBox));
  if (e.session_id) await conversation(convBox, e.id);
}

/**
 * costOf shows what a request cost: the total, its input and output parts
 * when known, and where the price comes from (provider, catalog or
 * override).
 */
function costOf(c) {
  if (!c) return h("p", { class: "muted", id: "cost" }, "No cost: the request has no usage, or neither the provider nor the catalog prices it.");
  const money = (v) => (v === null || v === undefined ? "–" : cost(v) + (c.currency && c.currency !== "USD" ? " " + c.currency : ""));
  return h("dl", { class: "detail", id: "cost" },
    h("dt", {}, "Cost"), h("dd", { "data-cost": c.total }, money(c.total)),
    h("dt", {}, "Input cost"), h("dd", { "data-cost-input": c.input === null ? "" : c.input }, money(c.input)),
    h("dt", {}, "Output cost"), h("dd", { "data-cost-output": c.output === null ? "" : c.output }, money(c.output)),
    h("dt", {}, "Priced by"), h("dd", { "data-cost-source": c.source || "" }, c.source || "–"));
}
