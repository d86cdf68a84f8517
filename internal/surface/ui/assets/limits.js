// Rate limits and budgets: rules with live usage bars against their caps
// (GET /admin/rate-limits, GET /admin/budgets), create, edit, delete,
// reset one and reset all (typed confirmation). Rules from configuration
// are shown read-only.

import { api } from "./api.js";
import { h, fill, num, cost, when, table, bar, toast, dialog, confirmAction, featureOff } from "./dom.js";
import { budgetChildren, ruleChildren, childrenList } from "./children.js";

const REFRESH_MS = 5000;

function periodOf(r) {
  return r.period || (r.period_seconds ? r.period_seconds + " s" : "–");
}

function ruleKey(r) {
  const k = { scope: r.scope, subject: r.subject };
  if (r.period) k.period = r.period; else k.period_seconds = r.period_seconds;
  return k;
}

// normPath writes a user path as the gateway stores it: a leading slash,
// no trailing one.
function normPath(p) {
  p = "/" + p.trim().replace(/^\/+|\/+$/g, "");
  return p;
}

// sameRule reports whether rules a and b (rows or bodies) have one key:
// scope, subject (compared as the gateway does, without regard to case)
// and period.
function sameRule(a, b) {
  const subj = (r) => {
    const s = (r.subject || r.user_path || "").trim().toLowerCase();
    return (r.scope || "user_path") === "user_path" ? normPath(s) : s;
  };
  return (a.scope || "user_path") === (b.scope || "user_path") && subj(a) === subj(b) &&
    (a.period || null) === (b.period || null) && (a.period ? true : (a.period_seconds || 0) === (b.period_seconds || 0));
}

function budgetKey(b) {
  return b.period ? { user_path: b.user_path, period: b.period } : { user_path: b.user_path, period_seconds: b.period_seconds };
}

/** typedReset asks the operator to type "reset" before a reset-all. */
async function typedReset(what) {
  const input = h("input", { name: "confirmation", autocomplete: "off", "aria-label": "Type reset" });
  const v = await dialog("Reset all " + what, h("div", { class: "form" },
    h("p", {}, "This clears the counters of every " + what.replace(/s$/, "") + ". Type ", h("code", {}, "reset"), " to confirm."), input), [
    { label: "Cancel", value: "cancel", class: "secondary" },
    { label: "Reset all", value: "reset", class: "danger", check: () => (input.value.trim() === "reset" ? true : "Type the word reset to confirm.") },
  ]);
  return v === "reset";
}

export async function render(root, ctx) {
  const rulesBox = h("div", { id: "rate-limits" });
  const budgetsBox = h("div", { id: "budgets" });
  fill(root,
    h("h1", {}, "Rate limits and budgets"),
    h("div", { class: "panel" },
      h("div", { class: "toolbar" }, h("h2", { class: "grow" }, "Rate limits"),
        h("button", { type: "button", id: "new-rule", onclick: () => editRule(null) }, "New rule"),
        h("button", { type: "button", class: "danger", id: "reset-all-rules", onclick: resetAllRules }, "Reset all")),
      featureOff(ctx && ctx.config.features, "rate_limits_enabled", "RATE_LIMITS_ENABLED", "Rate limiting is off: these rules are kept but not enforced, and no request is counted"),
      rulesBox),
    h("div", { class: "panel" },
      h("div", { class: "toolbar" }, h("h2", { class: "grow" }, "Budgets"),
        h("button", { type: "button", id: "new-budget", onclick: () => editBudget(null) }, "New budget"),
        h("button", { type: "button", class: "danger", id: "reset-all-budgets", onclick: resetAllBudgets }, "Reset all")),
      budgetsBox));

  // The templates whose children are shown, by key: they stay open when
  // the page refreshes its rows.
  const openChildren = new Set();

  // childrenToggle is the button of a per-child template's row that shows
  // or hides its children in a row under it.
  function childrenToggle(key, src, count, exhausted, reload) {
    const label = "Children" + (count !== undefined ? " (" + num(count) + (exhausted ? ", " + num(exhausted) + " exhausted" : "") + ")" : "");
    const toggle = (button, on) => {
      const tr = button.closest("tr");
      const next = tr.nextElementSibling;
      if (next && next.classList.contains("children-row")) next.remove();
      button.setAttribute("aria-expanded", String(on));
      if (!on) { openChildren.delete(key); return; }
      openChildren.add(key);
      tr.after(h("tr", { class: "children-row" }, h("td", { colspan: tr.children.length }, childrenList(src, reload))));
    };
    const button = h("button", { type: "button", class: "secondary small", "data-action": "children", "aria-expanded": "false",
      onclick: (ev) => toggle(ev.currentTarget, ev.currentTarget.getAttribute("aria-expanded") !== "true") }, label);
    // Re-opened after a refresh once the row is in the table.
    if (openChildren.has(key)) queueMicrotask(() => { if (button.isConnected) toggle(button, true); });
    return button;
  }

  // The rules and budgets last loaded, so that a new one does not
  // silently replace one of the same key.
  let currentRules = [];
  let currentBudgets = [];

  async function loadRules() {
    let res;
    try { res = await api("GET", "/admin/rate-limits"); } catch (err) {
      fill(rulesBox, h("p", { class: err.status === 404 ? "muted" : "error" }, "Rate limits are not available: " + err.message));
      return;
    }
    const rules = res.rules || [];
    currentRules = rules;
    const usage = (r) => {
      if (r.period === "concurrent") return [r.in_flight || 0, r.max_requests, "in flight"];
      return [r.requests_used || 0, r.max_requests, "requests"];
    };
    const t = table([
      { title: "Scope", cell: (r) => r.scope, phone: false },
      { title: "Subject", cell: (r) => h("code", {}, r.subject) },
      { title: "Period", cell: (r) => periodOf(r) + (r.per_child ? " · per child" : "") },
      { title: "Requests", cell: (r) => {
        const [used, cap, label] = usage(r);
        // A template has no counter of its own: each child has one.
        if (r.per_child) return cap ? num(cap) + " " + label + " per child" : "–";
        // A rule without a request cap (one on tokens only) still counts
        // its requests: they are shown without a cap and a bar.
        if (!cap) return h("span", { "data-used": used }, num(used) + " " + label);
        return h("div", {}, h("span", { "data-used": used }, num(used) + " / " + num(cap) + " " + label), bar(used, cap));
      } },
      { title: "Tokens", cell: (r) => {
        if (r.per_child) return r.max_tokens ? num(r.max_tokens) + " per child" : "–";
        // A rule without a token cap (one on requests only) still counts
        // the tokens its requests used: they are shown without a cap and
        // a bar. A concurrency rule counts none.
        if (!r.max_tokens) {
          if (r.period === "concurrent" || r.tokens_used === undefined) return "–";
          return h("span", { "data-tokens": r.tokens_used }, num(r.tokens_used) + " tokens");
        }
        return h("div", {}, num(r.tokens_used || 0) + " / " + num(r.max_tokens), bar(r.tokens_used || 0, r.max_tokens));
      } },
      { title: "Window ends", cell: (r) => (r.window_end ? when(r.window_end) : "–"), phone: false },
      { title: "Source", cell: (r) => r.source + (r.read_only ? " (read-only)" : ""), phone: false },
      { title: "", actions: true, cell: (r) => h("div", { class: "actions" },
        r.per_child ? childrenToggle("rule " + JSON.stringify(ruleKey(r)), ruleChildren(r), r.children, r.children_exhausted, loadRules) : null,
        h("button", { type: "button", class: "secondary small", "data-action": "reset", onclick: () => resetRule(r) }, "Reset"),
        r.read_only ? null : h("button", { type: "button", class: "secondary small", "data-action": "edit", onclick: () => editRule(r) }, "Edit"),
        r.read_only ? null : h("button", { type: "button", class: "danger small", "data-action": "delete", onclick: () => deleteRule(r) }, "Delete")) },
    ], rules, { empty: "No rate-limit rules." });
    rules.forEach((r, i) => { const tr = t.querySelectorAll("tbody tr")[i]; tr.dataset.subject = r.subject; tr.dataset.period = periodOf(r); });
    fill(rulesBox, t);
  }

  async function editRule(r) {
    const scope = h("select", { name: "scope" }, ["user_path", "provider", "model"].map((s) => h("option", { value: s }, s)));
    const subject = h("input", { name: "subject", placeholder: "/team/app, provider name or model id", autocomplete: "off" });
    const period = h("select", { name: "period" }, ["minute", "hour", "day", "concurrent", "custom"].map((s) => h("option", { value: s }, s)));
    const seconds = h("input", { name: "period_seconds", type: "number", min: 1, placeholder: "seconds" });
    const maxReq = h("input", { name: "max_requests", type: "number", min: 0 });
    const maxTok = h("input", { name: "max_tokens", type: "number", min: 0 });
    const perChild = h("input", { type: "checkbox", name: "per_child" });
    if (r) {
      scope.value = r.scope; subject.value = r.subject;
      period.value = r.period || "custom"; seconds.value = r.period_seconds || "";
      maxReq.value = r.max_requests || ""; maxTok.value = r.max_tokens || ""; perChild.checked = r.per_child;
    }
    const v = await dialog(r ? "Edit rate limit" : "New rate limit", h("div", { class: "form" },
      h("div", { class: "row" }, h("label", {}, "Scope", scope), h("label", {}, "Subject", subject)),
      h("div", { class: "row" }, h("label", {}, "Period", period), h("label", {}, "Custom seconds", seconds)),
      h("div", { class: "row" }, h("label", {}, "Max requests (in flight for concurrent)", maxReq), h("label", {}, "Max tokens", maxTok)),
      h("label", { class: "check" }, perChild, "Per child path (user-path rules)")), [
      { label: "Cancel", value: "cancel", class: "secondary" },
      { label: "Save", value: "save", check: async () => {
        const body = { scope: scope.value, subject: subject.value.trim(), max_requests: Number(maxReq.value) || 0, max_tokens: Number(maxTok.value) || 0, per_child: perChild.checked };
        if (period.value === "custom") body.period_seconds = Number(seconds.value) || 0; else body.period = period.value;
        if (r) body.previous = ruleKey(r);
        const taken = currentRules.find((o) => (!r || !sameRule(o, r)) && sameRule(o, body));
        if (taken) return `A ${periodOf(taken)} rule on ${taken.scope} ${taken.subject} exists already: edit that one instead.`;
        try { await api("PUT", "/admin/rate-limits", body); return true; } catch (err) { return err.message; }
      } },
    ]);
    if (v === "save") { toast("Rule saved."); await loadRules(); }
  }

  async function deleteRule(r) {
    if (!(await confirmAction("Delete rate limit", `The ${periodOf(r)} rule on ${r.scope} ${r.subject} and its counters will be deleted.`))) return;
    try { await api("DELETE", "/admin/rate-limits", ruleKey(r)); toast("Rule deleted."); } catch (err) { toast(err.message, true); }
    await loadRules();
  }

  async function resetRule(r) {
    if (!(await confirmAction("Reset counters", `Clear the counters of the ${periodOf(r)} rule on ${r.subject}?`, "Reset"))) return;
    try { await api("POST", "/admin/rate-limits/reset-one", ruleKey(r)); toast("Counters reset."); } catch (err) { toast(err.message, true); }
    await loadRules();
  }

  async function resetAllRules() {
    if (!(await typedReset("rate limits"))) return;
    try { await api("POST", "/admin/rate-limits/reset", { confirmation: "reset" }); toast("All counters reset."); } catch (err) { toast(err.message, true); }
    await loadRules();
  }

  async function loadBudgets() {
    let res;
    try { res = await api("GET", "/admin/budgets"); } catch (err) {
      fill(budgetsBox, h("p", { class: err.status === 404 ? "muted" : "error" }, "Budgets are not available: " + err.message));
      return;
    }
    const list = res.budgets || [];
    currentBudgets = list;
    const t = table([
      { title: "User path", cell: (b) => h("code", {}, b.user_path) },
      { title: "Period", cell: (b) => budgetPeriod(b) + (b.per_child ? " · per child" : "") },
      { title: "Spent", cell: (b) => h("div", {}, h("span", { "data-spent": b.spent }, cost(b.spent) + " / " + cost(b.amount)), bar(b.spent, b.amount)) },
      { title: "Remaining", num: true, cell: (b) => cost(b.remaining), phone: false },
      { title: "Period ends", cell: (b) => when(b.period_end), phone: false },
      { title: "Source", cell: (b) => b.source + (b.source === "manual" ? "" : " (read-only)"), phone: false },
      { title: "", actions: true, cell: (b) => h("div", { class: "actions" },
        b.per_child ? childrenToggle("budget " + JSON.stringify(budgetKey(b)), budgetChildren(b), b.children, b.children_exhausted, loadBudgets) : null,
        h("button", { type: "button", class: "secondary small", "data-action": "reset", onclick: () => resetBudget(b) }, "Reset"),
        b.source === "manual" ? h("button", { type: "button", class: "secondary small", "data-action": "edit", onclick: () => editBudget(b) }, "Edit") : null,
        b.source === "manual" ? h("button", { type: "button", class: "danger small", "data-action": "delete", onclick: () => deleteBudget(b) }, "Delete") : null) },
    ], list, { empty: "No budgets." });
    fill(budgetsBox, t);
  }

  // budgetPeriod names a budget's period and the current window of it:
  // "monthly (2026-11)", or "600 s (from 14:50)" for a custom period.
  function budgetPeriod(b) {
    if (b.period) return b.period + (b.period_label ? " (" + b.period_label + ")" : "");
    return b.period_seconds + " s" + (b.period_start ? " (from " + when(b.period_start) + ")" : "");
  }

  function budgetPath(b) {
    return "/admin/budgets/" + encodeURIComponent(b.user_path) + "/" + encodeURIComponent(b.period || String(b.period_seconds));
  }

  async function editBudget(b) {
    const path = h("input", { name: "user_path", placeholder: "/team", autocomplete: "off" });
    const period = h("select", { name: "period" }, ["hourly", "daily", "weekly", "monthly", "custom"].map((s) => h("option", { value: s }, s)));
    const seconds = h("input", { name: "period_seconds", type: "number", min: 1, placeholder: "seconds" });
    const amount = h("input", { name: "amount", type: "number", min: 0, step: "0.01" });
    const perChild = h("input", { type: "checkbox", name: "per_child" });
    if (b) {
      path.value = b.user_path; path.disabled = true;
      period.value = b.period || "custom"; period.disabled = true; seconds.value = b.period ? "" : b.period_seconds; seconds.disabled = true;
      amount.value = b.amount; perChild.checked = b.per_child;
    }
    const v = await dialog(b ? "Edit budget" : "New budget", h("div", { class: "form" },
      h("label", {}, "User path", path),
      h("div", { class: "row" }, h("label", {}, "Period", period), h("label", {}, "Custom seconds", seconds)),
      h("label", {}, "Amount (USD)", amount),
      h("label", { class: "check" }, perChild, "Per child path")), [
      { label: "Cancel", value: "cancel", class: "secondary" },
      { label: "Save", value: "save", check: async () => {
        const key = { user_path: path.value.trim(), period: period.value === "custom" ? null : period.value, period_seconds: Number(seconds.value) || 0 };
        if (!key.user_path) return "A user path is required.";
        if (amount.value.trim() === "" || !Number.isFinite(Number(amount.value))) return "An amount in USD is required (0 refuses every priced request).";
        if (!b && currentBudgets.some((o) => o.user_path === normPath(key.user_path) && (o.period || null) === key.period &&
          (key.period || o.period_seconds === key.period_seconds))) {
          return "A budget with this user path and period exists already: edit that one instead.";
        }
        try { await api("PUT", budgetPath(key), { amount: Number(amount.value), per_child: perChild.checked }); return true; } catch (err) { return err.message; }
      } },
    ]);
    if (v === "save") { toast("Budget saved."); await loadBudgets(); }
  }

  async function deleteBudget(b) {
    if (!(await confirmAction("Delete budget", `The ${b.period_label || b.period} budget of ${b.user_path} and its spend will be deleted.`))) return;
    try { await api("DELETE", budgetPath(b)); toast("Budget deleted."); } catch (err) { toast(err.message, true); }
    await loadBudgets();
  }

  async function resetBudget(b) {
    if (!(await confirmAction("Reset budget", `Start the spend of the ${b.period_label || b.period} budget of ${b.user_path} from zero?`, "Reset"))) return;
    try { await api("POST", "/admin/budgets/reset-one", budgetKey(b)); toast("Budget reset."); } catch (err) { toast(err.message, true); }
    await loadBudgets();
  }

  async function resetAllBudgets() {
    if (!(await typedReset("budgets"))) return;
    try { await api("POST", "/admin/budgets/reset", { confirmation: "reset" }); toast("All budgets reset."); } catch (err) { toast(err.message, true); }
    await loadBudgets();
  }

  await Promise.all([loadRules(), loadBudgets()]);
  const timer = setInterval(() => { if (!document.querySelector("dialog[open]")) { loadRules(); loadBudgets(); } }, REFRESH_MS);
  addEventListener("pagehide", () => clearInterval(timer));
}
