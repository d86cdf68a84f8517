// The dashboard shell: sign-in, navigation, the gateway version and its
// effective switches, then the page the path names.

import { api, ApiError, key, setKey, forget, onUnauthorized } from "./api.js";
import { h, fill } from "./dom.js";

const PAGES = {
  "/admin/dashboard": "overview",
  "/admin/dashboard/audit": "audit",
  "/admin/dashboard/usage": "usage",
  "/admin/dashboard/keys": "keys",
  "/admin/dashboard/limits": "limits",
  "/admin/dashboard/models": "models",
};

const SWITCHES = [
  ["logging_enabled", "audit log"],
  ["usage_enabled", "usage"],
  ["dashboard_live_logs_enabled", "live logs"],
  ["rate_limits_enabled", "rate limits"],
  ["budgets_enabled", "budgets"],
  ["cache_enabled", "cache"],
];

function pageName() {
  const p = location.pathname.replace(/\/+$/, "");
  return PAGES[p] || "overview";
}

/** loginMessage turns a failed sign-in into what the operator reads. */
function loginMessage(err) {
  if (err.status === 401) return "This key was not accepted (401 Unauthorized). Check it and try again.";
  if (err.status === 403 && err.code === "dashboard_access_denied")
    return "This API key has no dashboard access (403 dashboard_access_denied). Sign in with the master key, or grant the key dashboard access on the API keys page.";
  if (err.status === 403) return "Access denied (403): " + err.message;
  return "Sign-in failed: " + err.message;
}

function showLogin(message) {
  document.getElementById("nav").hidden = true;
  fill(document.getElementById("meta"));
  fill(document.getElementById("page"));
  document.getElementById("login").hidden = false;
  const e = document.getElementById("login-error");
  e.textContent = message || "";
  e.hidden = !message;
  document.getElementById("login-key").focus();
}

function showMeta(cfg) {
  const meta = document.getElementById("meta");
  const f = cfg.features || {};
  fill(meta,
    h("span", { class: "chip", "data-version": cfg.version }, "v" + (cfg.version || "?")),
    SWITCHES.map(([k, label]) => h("span", { class: "chip " + (f[k] ? "on" : "off"), title: k + " = " + !!f[k], "data-switch": k }, label + (f[k] ? " on" : " off"))),
    h("button", { type: "button", class: "secondary small", id: "signout", onclick: () => { forget(); location.reload(); } }, "Sign out"));
}

async function start() {
  let cfg;
  try {
    cfg = await api("GET", "/admin/runtime/config", undefined, { quiet: true });
  } catch (err) {
    if (err instanceof ApiError && (err.status === 401 || err.status === 403)) {
      const had = key() !== "";
      forget();
      showLogin(had ? loginMessage(err) : "");
      return;
    }
    showLogin("The admin API is not reachable: " + err.message);
    return;
  }
  document.getElementById("login").hidden = true;
  const nav = document.getElementById("nav");
  nav.hidden = false;
  const name = pageName();
  for (const a of nav.querySelectorAll("a")) {
    if (a.dataset.page === name) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  showMeta(cfg);
  const root = document.getElementById("page");
  fill(root, h("p", { class: "muted" }, "Loading…"));
  try {
    const mod = await import("./" + name + ".js");
    fill(root);
    await mod.render(root, { config: cfg });
    document.body.dataset.readyMs = String(Math.round(performance.now()));
    document.body.dataset.ready = name;
  } catch (err) {
    fill(root, h("p", { class: "error", role: "alert" }, "This page could not load: " + err.message));
  }
}

document.addEventListener("DOMContentLoaded", () => {
  onUnauthorized((err) => {
    forget();
    showLogin(err.status === 403 ? "This key no longer has dashboard access (403). Sign in with another." :
      "Your key is no longer accepted (401). Sign in again.");
  });
  document.getElementById("login-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const input = document.getElementById("login-key");
    const k = input.value.trim();
    if (!k) return;
    setKey(k);
    input.value = "";
    start();
  });
  start();
});
