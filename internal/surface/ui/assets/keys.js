// API keys: list managed keys (GET /admin/auth-keys), create one (the key
// is shown once, with a copy button), edit its name, user path, expiry and
// dashboard access (PATCH /admin/auth-keys/{id}), grant or revoke
// dashboard access, deactivate and delete, each destructive action
// confirmed first.

import { api } from "./api.js";
import { h, fill, when, table, toast, dialog, confirmAction, DATE_INPUT } from "./dom.js";

export async function render(root) {
  const list = h("div", { id: "keys-list" });
  const created = h("div", { id: "key-created" });
  fill(root,
    h("div", { class: "toolbar" }, h("h1", { class: "grow" }, "API keys"),
      h("button", { type: "button", id: "new-key", onclick: create }, "New key")),
    created, h("div", { class: "panel" }, list));

  async function load() {
    let res;
    try {
      res = await api("GET", "/admin/auth-keys");
    } catch (err) {
      fill(list, h("p", { class: "error", role: "alert" }, "Could not load keys: " + err.message));
      return;
    }
    const t = table([
      { title: "Name", cell: (k) => h("span", { "data-key-name": k.name }, k.name) },
      { title: "ID", cell: (k) => h("code", { "data-key-id": k.id }, k.id) },
      { title: "Prefix", cell: (k) => h("code", {}, k.prefix), phone: false },
      { title: "User path", cell: (k) => k.user_path || "–" },
      { title: "State", cell: (k) => h("span", { class: k.state === "active" ? "ok" : "muted" }, k.state) },
      { title: "Dashboard", cell: (k) => (k.dashboard_access ? "yes" : "no") },
      { title: "Last used", cell: (k) => when(k.last_used_at), phone: false },
      { title: "Expires", cell: (k) => (k.expires_at ? when(k.expires_at) : "never"), phone: false },
      { title: "Created", cell: (k) => when(k.created_at), phone: false },
      { title: "", actions: true, cell: (k) => h("div", { class: "actions" },
        h("button", { type: "button", class: "secondary small", "data-action": "edit", onclick: () => edit(k) }, "Edit"),
        h("button", { type: "button", class: "secondary small", "data-action": "dashboard", onclick: () => toggleDashboard(k) },
          k.dashboard_access ? "Revoke dashboard" : "Grant dashboard"),
        k.enabled ? h("button", { type: "button", class: "secondary small", "data-action": "deactivate", onclick: () => deactivate(k) }, "Deactivate") : null,
        h("button", { type: "button", class: "danger small", "data-action": "delete", onclick: () => remove(k) }, "Delete")) },
    ], res.keys || [], { empty: "No managed keys yet.", label: "API keys" });
    (res.keys || []).forEach((k, i) => { t.querySelectorAll("tbody tr")[i].dataset.id = k.id; });
    fill(list, t);
  }

  async function create() {
    const name = h("input", { name: "name", required: true, autocomplete: "off" });
    const path = h("input", { name: "user_path", placeholder: "/team/app", autocomplete: "off" });
    const desc = h("input", { name: "description", autocomplete: "off" });
    const dash = h("input", { type: "checkbox", name: "dashboard_access" });
    const expires = h("input", Object.assign({ name: "expires_at" }, DATE_INPUT));
    let key = null;
    const v = await dialog("New API key", h("div", { class: "form" },
      h("label", {}, "Name", name), h("label", {}, "User path (optional)", path), h("label", {}, "Description (optional)", desc),
      h("label", {}, "Expires (optional, 00:00 UTC of that day)", expires),
      h("label", { class: "check" }, dash, "Dashboard access (may use /admin/*)")), [
      { label: "Cancel", value: "cancel", class: "secondary" },
      { label: "Create", value: "create", check: async () => {
        if (!name.value.trim()) return "A name is required.";
        if (expires.value && !expires.checkValidity()) return "Write the expiry date as yyyy-mm-dd.";
        try {
          const body = { name: name.value.trim(), user_path: path.value.trim(), description: desc.value.trim(), dashboard_access: dash.checked };
          if (expires.value) body.expires_at = expires.value + "T00:00:00Z";
          key = await api("POST", "/admin/auth-keys", body);
          return true;
        } catch (err) { return err.message; }
      } },
    ]);
    if (v !== "create" || !key) return;
    const code = h("code", { id: "new-key-value" }, key.key);
    fill(created, h("div", { class: "panel" },
      h("h2", {}, "Key “" + key.name + "” created"),
      h("p", {}, "Copy it now: it is shown only once and cannot be read again."),
      h("div", { class: "secret" }, code, h("button", { type: "button", id: "copy-key", onclick: async () => {
        try { await navigator.clipboard.writeText(key.key); toast("Copied."); } catch { selectText(code); toast("Select and copy the key by hand.", true); }
      } }, "Copy")),
      h("div", { class: "actions" }, h("button", { type: "button", class: "secondary", onclick: () => fill(created) }, "Done"))));
    await load();
  }

  // edit changes a key's name, user path, expiry day (00:00 UTC; empty
  // for never) and dashboard access; only the fields changed are sent.
  async function edit(k) {
    const name = h("input", { name: "name", value: k.name, required: true, autocomplete: "off" });
    const path = h("input", { name: "user_path", value: k.user_path || "", placeholder: "/team/app", autocomplete: "off" });
    const was = k.expires_at ? new Date(k.expires_at).toISOString().slice(0, 10) : "";
    const expires = h("input", Object.assign({ name: "expires_at", value: was }, DATE_INPUT));
    const dash = h("input", { type: "checkbox", name: "dashboard_access", checked: k.dashboard_access });
    const v = await dialog("Edit key “" + k.name + "”", h("div", { class: "form" },
      h("p", { class: "muted" }, "ID ", h("code", {}, k.id)),
      h("label", {}, "Name", name), h("label", {}, "User path (empty: none)", path),
      h("label", {}, "Expires (yyyy-mm-dd, 00:00 UTC; empty: never)", expires),
      h("label", { class: "check" }, dash, "Dashboard access (may use /admin/*)")), [
      { label: "Cancel", value: "cancel", class: "secondary" },
      { label: "Save", value: "save", check: async () => {
        if (!name.value.trim()) return "A name is required.";
        if (expires.value && !expires.checkValidity()) return "Write the expiry date as yyyy-mm-dd.";
        const body = {};
        if (name.value.trim() !== k.name) body.name = name.value.trim();
        if (path.value.trim() !== (k.user_path || "")) body.user_path = path.value.trim();
        if (dash.checked !== !!k.dashboard_access) body.dashboard_access = dash.checked;
        if (expires.value !== was) {
          if (expires.value) body.expires_at = expires.value + "T00:00:00Z"; else body.never_expires = true;
        }
        if (Object.keys(body).length === 0) return true;
        try { await api("PATCH", "/admin/auth-keys/" + encodeURIComponent(k.id), body); return true; } catch (err) { return err.message; }
      } },
    ]);
    if (v === "save") { toast("Key saved."); await load(); }
  }

  async function toggleDashboard(k) {
    const grant = !k.dashboard_access;
    if (!grant && !(await confirmAction("Revoke dashboard access", `Key “${k.name}” will no longer open the dashboard or call /admin/*.`, "Revoke"))) return;
    try {
      await api("PATCH", "/admin/auth-keys/" + encodeURIComponent(k.id), { dashboard_access: grant });
      toast(grant ? "Dashboard access granted." : "Dashboard access revoked.");
    } catch (err) { toast(err.message, true); }
    await load();
  }

  async function deactivate(k) {
    if (!(await confirmAction("Deactivate key", `Key “${k.name}” (${k.prefix}…) will stop working at once.`, "Deactivate"))) return;
    try { await api("POST", "/admin/auth-keys/" + encodeURIComponent(k.id) + "/deactivate"); toast("Key deactivated."); } catch (err) { toast(err.message, true); }
    await load();
  }

  async function remove(k) {
    if (!(await confirmAction("Delete key", `Key “${k.name}” (${k.prefix}…) will be deleted. This cannot be undone.`))) return;
    try { await api("DELETE", "/admin/auth-keys/" + encodeURIComponent(k.id)); toast("Key deleted."); } catch (err) { toast(err.message, true); }
    await load();
  }

  await load();
}

function selectText(el) {
  const r = document.createRange();
  r.selectNodeContents(el);
  const s = getSelection();
  s.removeAllRanges();
  s.addRange(r);
}
