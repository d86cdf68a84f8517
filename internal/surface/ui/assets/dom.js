// DOM building and formatting helpers shared by every page. Elements are
// built node by node (never from HTML strings), so text from the gateway
// is always text.

/** h builds an element: h("td", {class: "num"}, "12", child, ...). */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k === "value") el.value = v;
    else if (k === "checked") el.checked = !!v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** clear removes every child of el and appends the given ones. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

const intFmt = new Intl.NumberFormat("en-US");

/** num formats an integer count with thousands separators. */
export function num(n) {
  return intFmt.format(Math.round(Number(n) || 0));
}

/**
 * cost formats an amount in US dollars: cents, four decimals below a cent,
 * and two significant digits below a hundredth of a cent ($0.000012).
 */
export function cost(n) {
  n = Number(n) || 0;
  const a = Math.abs(n);
  const digits = a === 0 || a >= 0.01 ? 2 : a >= 0.0001 ? 4 : Math.min(12, 1 - Math.floor(Math.log10(a)));
  return "$" + n.toFixed(digits);
}

const moneyAxisFmt = new Intl.NumberFormat("en-US", { notation: "compact", maximumSignificantDigits: 2 });

/** moneyAxis formats an amount in US dollars short, for chart axes: $1.2K, $0.00015. */
export function moneyAxis(n) {
  return "$" + moneyAxisFmt.format(Number(n) || 0);
}

/** ms formats a duration in milliseconds. */
export function ms(v) {
  if (v === null || v === undefined) return "–";
  v = Number(v);
  return v >= 1000 ? (v / 1000).toFixed(2) + " s" : v.toFixed(v < 10 ? 1 : 0) + " ms";
}

/** nsToMs formats a duration given in nanoseconds. */
export function ns(v) {
  return ms((Number(v) || 0) / 1e6);
}

const compactFmt = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 });

/** compact formats a count short for chart axes: 10.7M, 12K, 950. */
export function compact(n) {
  return compactFmt.format(Number(n) || 0);
}

/** pct formats a 0..1 ratio as a percentage; null (nothing to rate) is "—". */
export function pct(r) {
  if (r === null || r === undefined) return "—";
  return ((Number(r) || 0) * 100).toFixed(1) + "%";
}

const pad = (n) => String(n).padStart(2, "0");

/** when formats a timestamp as yyyy-mm-dd hh:mm:ss in the browser's local time. */
export function when(ts) {
  if (!ts) return "–";
  const d = new Date(ts);
  if (isNaN(d)) return String(ts);
  return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " +
    pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds());
}

/** statusCell renders an HTTP status with its class colour. */
export function statusCell(code) {
  const c = Number(code) || 0;
  return h("span", { class: "status-" + String(c).charAt(0) }, c === 0 ? "…" : String(c));
}

// cellClass is the class of a column's cells: num right-aligns them,
// hide-phone hides them on a phone, row-actions marks the row's buttons.
function cellClass(c) {
  return [c.num ? "num" : "", c.phone === false ? "hide-phone" : "", c.actions ? "row-actions" : ""].join(" ").trim() || null;
}

/**
 * table renders rows under headers; a column is {title, cell(row), num,
 * phone, actions}: phone false hides it on a phone, actions marks the
 * row's buttons, which on a phone take a line of their own under the
 * row's other cells so that none is past the screen's edge.
 */
export function table(columns, rows, opts = {}) {
  const head = h("tr", {}, columns.map((c) => h("th", { class: cellClass(c) }, c.title)));
  const body = h("tbody", {});
  for (const r of rows) body.append(tableRow(columns, r, opts));
  if (rows.length === 0) body.append(h("tr", {}, h("td", { colspan: columns.length, class: "muted" }, opts.empty || "Nothing to show.")));
  const withActions = columns.some((c) => c.actions);
  const t = h("table", { class: [opts.class || "", withActions ? "has-row-actions" : ""].join(" ").trim() || null }, h("thead", {}, head), body);
  // The phone layout's grid has a column for each cell a phone shows
  // beside the others.
  if (withActions) t.style.setProperty("--phone-cols", String(columns.filter((c) => c.phone !== false && !c.actions).length));
  return scroller(t, opts.label || "Table");
}

/**
 * scroller wraps content that may be wider than the screen in a region
 * that scrolls sideways on its own; it takes the keyboard focus (so its
 * content can be scrolled without a pointer) and is named by label.
 */
export function scroller(content, label) {
  return h("div", { class: "tablewrap", tabindex: 0, role: "region", "aria-label": label }, content);
}

/**
 * tableRow renders one row of table. A row with opts.onclick opens with a
 * click, or with Enter once it has the keyboard focus.
 */
export function tableRow(columns, r, opts = {}) {
  const tr = h("tr", { class: opts.onclick ? "clickable" : null, tabindex: opts.onclick ? 0 : null },
    columns.map((c) => h("td", { class: cellClass(c) }, c.cell(r))));
  if (opts.onclick) {
    tr.addEventListener("click", (ev) => { if (!ev.target.closest("button,a,input,select")) opts.onclick(r); });
    tr.addEventListener("keydown", (ev) => { if (ev.key === "Enter" && ev.target === tr) { ev.preventDefault(); opts.onclick(r); } });
  }
  return tr;
}

/** card is one figure with its label. */
export function card(label, value, id) {
  return h("div", { class: "card" }, h("div", { class: "label" }, label), h("div", { class: "value", "data-figure": id || null }, value));
}

/** bar is a usage bar of used against cap. */
export function bar(used, cap) {
  const r = cap > 0 ? Math.min(1, used / cap) : 0;
  const span = h("span", {});
  span.style.width = (r * 100).toFixed(1) + "%";
  return h("div", { class: "bar" + (r >= 1 ? " full" : r >= 0.8 ? " high" : ""), title: num(used) + " / " + num(cap) }, span);
}

/**
 * DATE_INPUT are the attributes of a date field: typed as yyyy-mm-dd, the
 * one date format of every page, whatever the browser's locale.
 */
export const DATE_INPUT = { type: "text", inputmode: "numeric", pattern: "\\d{4}-\\d{2}-\\d{2}", size: 16, autocomplete: "off" };

/** share is a bar of v's share of top (the largest of its table). */
export function share(v, top) {
  const span = h("span", {});
  span.style.width = (top > 0 ? Math.min(100, (v / top) * 100) : 0).toFixed(1) + "%";
  return h("div", { class: "bar share", "aria-hidden": "true" }, span);
}

/** toast shows a short message for a few seconds. */
export function toast(msg, isError) {
  const t = h("div", { class: "toast" + (isError ? " error" : ""), role: isError ? "alert" : "status" }, msg);
  document.body.append(t);
  setTimeout(() => t.remove(), isError ? 6000 : 3000);
}

/**
 * dialog opens a modal with content and buttons; it resolves with the
 * value of the button pressed (or null when dismissed). A button may carry
 * check(): its result, when not true, is shown and keeps the dialog open.
 * While a check runs every button is disabled, so a double click sends
 * one request, not two.
 */
export function dialog(title, content, buttons) {
  return new Promise((resolve) => {
    const err = h("p", { class: "error", role: "alert", hidden: true });
    const actions = h("div", { class: "actions" });
    const dlg = h("dialog", {}, h("form", { method: "dialog" }, h("h2", {}, title), content, err, actions));
    const busy = (on) => { for (const el of actions.querySelectorAll("button")) el.disabled = on; };
    for (const b of buttons) {
      actions.append(h("button", {
        type: "button", class: b.class || null, "data-action": b.value,
        onclick: async () => {
          if (b.check) {
            busy(true);
            let ok;
            try { ok = await b.check(); } finally { busy(false); }
            if (ok !== true) { err.textContent = ok; err.hidden = false; return; }
          }
          dlg.close(); dlg.remove(); resolve(b.value);
        },
      }, b.label));
    }
    dlg.addEventListener("cancel", () => { dlg.remove(); resolve(null); });
    document.body.append(dlg);
    dlg.showModal();
  });
}

/** confirmAction asks for confirmation of a destructive action. */
export async function confirmAction(title, text, label = "Delete") {
  const v = await dialog(title, h("p", {}, text), [
    { label: "Cancel", value: "cancel", class: "secondary" },
    { label, value: "ok", class: "danger" },
  ]);
  return v === "ok";
}

/** seg is a segmented control; onpick(value) runs on a click. */
export function seg(options, current, onpick) {
  const wrap = h("div", { class: "seg", role: "group" });
  for (const [value, label] of options) {
    wrap.append(h("button", { type: "button", "aria-pressed": String(value === current), "data-value": value, onclick: () => {
      for (const b of wrap.children) b.setAttribute("aria-pressed", String(b.dataset.value === value));
      onpick(value);
    } }, label));
  }
  return wrap;
}

/**
 * pretty renders any JSON value indented, or a placeholder; the block
 * scrolls on its own, so it takes the keyboard focus and is named by
 * label.
 */
export function pretty(v, label = "JSON") {
  if (v === undefined || v === null) return h("p", { class: "muted" }, "none");
  let text = v;
  if (typeof v === "string") {
    try { text = JSON.stringify(JSON.parse(v), null, 2); } catch { text = v; }
  } else text = JSON.stringify(v, null, 2);
  return h("pre", { tabindex: 0, role: "region", "aria-label": label }, text);
}

/**
 * featureOff returns a notice that a feature the page shows is switched
 * off (features is the runtime config's map; name its key there, env the
 * variable that turns it on), or null when it is on.
 */
export function featureOff(features, name, env, text) {
  if (!features || features[name] !== false) return null;
  return h("p", { class: "warn", role: "status", "data-off": name }, text + " (" + env + "=false).");
}

/**
 * auditHref is the audit log page filtered by filters ({user_path, key_id,
 * model, provider, status, ...}); the filters live in the URL's hash.
 */
export function auditHref(filters) {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(filters)) if (v !== undefined && v !== null && v !== "") u.set(k, v);
  const s = u.toString();
  return "/admin/dashboard/audit" + (s ? "#" + s : "");
}
