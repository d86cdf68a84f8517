// The children of per-child templates on the limits page: each child's
// spend or usage against the template's cap, with a reset of that child
// alone (GET /admin/budgets/{user_path}/{period}/children, GET
// /admin/rate-limits/children; POST .../reset-one with the child's path).
// A gateway without these routes shows a quiet note instead.

import { api, qs } from "./api.js";
import { h, fill, num, cost, bar, table, toast, confirmAction } from "./dom.js";

/** PAGE is how many children one read lists. */
const PAGE = 50;

// usageCell shows used against cap with a bar, or used alone without a cap.
function usageCell(used, cap, unit, attr) {
  const text = h("span", { [attr]: used }, num(used) + (cap ? " / " + num(cap) : "") + " " + unit);
  return cap ? h("div", {}, text, bar(used, cap)) : text;
}

/** budgetChildren describes the children of budget template b. */
export function budgetChildren(b) {
  const period = b.period || String(b.period_seconds);
  return {
    label: "Children of the budget " + b.user_path,
    path: "/admin/budgets/" + encodeURIComponent(b.user_path) + "/" + encodeURIComponent(period) + "/children",
    columns: [
      { title: "Spent", cell: (c) => h("div", {}, h("span", { "data-spent": c.spent }, cost(c.spent) + " / " + cost(c.amount)), bar(c.spent, c.amount)) },
      { title: "Remaining", num: true, cell: (c) => cost(c.remaining), phone: false },
    ],
    reset: (c) => api("POST", "/admin/budgets/reset-one", b.period ? { user_path: c.user_path, period: b.period } : { user_path: c.user_path, period_seconds: b.period_seconds }),
  };
}

/** ruleChildren describes the children of rate-limit template r. */
export function ruleChildren(r) {
  const key = r.period ? { period: r.period } : { period_seconds: r.period_seconds };
  const concurrent = r.period === "concurrent";
  return {
    label: "Children of the rate limit " + r.subject,
    path: "/admin/rate-limits/children" + qs(Object.assign({ scope: "user_path", subject: r.subject }, key)),
    columns: [
      { title: concurrent ? "In flight" : "Requests", cell: (c) => concurrent ? usageCell(c.in_flight, c.max_requests, "in flight", "data-used")
        : usageCell(c.requests_used, c.max_requests, "requests", "data-used") },
      { title: "Tokens", cell: (c) => (concurrent ? "–" : usageCell(c.tokens_used, c.max_tokens, "tokens", "data-tokens")) },
    ],
    reset: (c) => api("POST", "/admin/rate-limits/reset-one", Object.assign({ scope: "user_path", subject: c.user_path }, key)),
  };
}

/**
 * childrenList draws the children src describes into a new element and
 * returns it; reload runs after a child is reset.
 */
export function childrenList(src, reload) {
  const box = h("div", { class: "children", "data-children-of": src.path });
  let rows = [];
  let next = "";

  async function load(after) {
    let page;
    try {
      page = await api("GET", src.path + (src.path.includes("?") ? "&" : "?") + "limit=" + PAGE + (after ? "&after=" + encodeURIComponent(after) : ""), undefined, { quiet: true });
    } catch (err) {
      const missing = err.status === 404 && err.code !== "budget_not_found" && err.code !== "rate_limit_not_found";
      fill(box, h("p", { class: "muted" }, missing ? "This gateway does not list the children of a template." : "Could not load the children: " + err.message));
      return;
    }
    rows = after ? rows.concat(page.children || []) : page.children || [];
    next = page.next || "";
    draw();
  }

  async function reset(c) {
    if (!(await confirmAction("Reset " + c.user_path, `Clear the counters of ${c.user_path} under this template? Its siblings keep theirs.`, "Reset"))) return;
    try { await src.reset(c); toast("Reset " + c.user_path + "."); } catch (err) { toast(err.message, true); }
    await load("");
    if (reload) reload();
  }

  function draw() {
    const columns = [
      { title: "Child", cell: (c) => h("code", {}, c.user_path) },
      ...src.columns,
      { title: "State", cell: (c) => (c.exhausted ? h("span", { class: "bad" }, "exhausted") : h("span", { class: "ok" }, "open")), phone: false },
      { title: "", actions: true, cell: (c) => h("div", { class: "actions" },
        h("button", { type: "button", class: "secondary small", "data-action": "reset-child", "aria-label": "Reset " + c.user_path, onclick: () => reset(c) }, "Reset")) },
    ];
    const t = table(columns, rows, { label: src.label, empty: "No child has used this template in its current window." });
    rows.forEach((c, i) => { t.querySelectorAll("tbody tr")[i].dataset.child = c.user_path; });
    fill(box, t, next ? h("button", { type: "button", class: "secondary small", onclick: () => load(next) }, "More children") : null);
  }

  fill(box, h("p", { class: "muted" }, "Loading the children…"));
  load("");
  return box;
}
