// Models: the inventory (GET /admin/models) with provider, category
// filter, metadata and access state; virtual models (/admin/virtual-models)
// and failover rules (/admin/failover) with create, edit and delete.
// Managed rows (from configuration) are read-only. A part whose admin
// route is not served by this gateway says so instead of failing.

import { api, qs } from "./api.js";
import { h, fill, num, table, toast, dialog, confirmAction } from "./dom.js";

const CATEGORIES = ["all", "text_generation", "embedding", "image", "audio", "video", "utility"];

function price(p, k) {
  return p && typeof p[k] === "number" ? "$" + p[k] : "–";
}

function listOf(res, ...names) {
  if (Array.isArray(res)) return res;
  for (const n of names) if (res && Array.isArray(res[n])) return res[n];
  return [];
}

/** failoverRows accepts a list of {primary_model, targets} or a map primary → targets. */
function failoverRows(res) {
  const l = listOf(res, "failover", "rules", "routes");
  if (l.length || Array.isArray(res)) return l;
  const m = (res && (res.failover || res.routes)) || res || {};
  return Object.entries(m).filter(([, v]) => Array.isArray(v)).map(([k, v]) => ({ primary_model: k, targets: v }));
}

function unavailable(box, what, err) {
  fill(box, h("p", { class: err.status === 404 ? "muted" : "error", "data-unavailable": what },
    err.status === 404 ? what + " are not served by this gateway yet." : "Could not load " + what.toLowerCase() + ": " + err.message));
}

function targetText(t) {
  if (typeof t === "string") return t;
  return (t.provider ? t.provider + "/" : "") + t.model + (t.weight !== undefined && t.weight !== 1 ? " ×" + t.weight : "");
}

/** parseTargets reads "provider/model*weight" items separated by commas. */
function parseTargets(s) {
  return s.split(",").map((x) => x.trim()).filter(Boolean).map((x) => {
    const [ref, w] = x.split("*");
    const i = ref.indexOf("/");
    const t = i > 0 ? { provider: ref.slice(0, i), model: ref.slice(i + 1) } : { model: ref };
    t.weight = w ? Number(w) : 1;
    return t;
  });
}

export async function render(root) {
  let category = "all";
  const invBox = h("div", { id: "inventory" });
  const vmBox = h("div", { id: "virtual-models" });
  const foBox = h("div", { id: "failover" });
  const catSel = h("select", { name: "category", "aria-label": "Category", onchange: () => { category = catSel.value; loadInventory(); } },
    CATEGORIES.map((c) => h("option", { value: c }, c.replace("_", " "))));
  const filter = h("input", { name: "filter", placeholder: "Filter by id or provider", "aria-label": "Filter", oninput: () => loadInventory(true) });
  fill(root,
    h("h1", {}, "Models"),
    h("div", { class: "panel" }, h("div", { class: "toolbar" }, h("h2", { class: "grow" }, "Inventory"), filter, catSel), invBox),
    h("div", { class: "panel" }, h("div", { class: "toolbar" }, h("h2", { class: "grow" }, "Virtual models"),
      h("button", { type: "button", id: "new-vmodel", onclick: () => editVM(null) }, "New virtual model")), vmBox),
    h("div", { class: "panel" }, h("div", { class: "toolbar" }, h("h2", { class: "grow" }, "Failover"),
      h("button", { type: "button", id: "new-failover", onclick: () => editFO(null) }, "New failover rule")), foBox));

  let inventory = null;
  async function loadInventory(cached) {
    if (!cached || !inventory) {
      try { inventory = listOf(await api("GET", "/admin/models" + qs({ category: category === "all" ? "" : category })), "models", "data"); } catch (err) {
        inventory = null;
        unavailable(invBox, "The model inventory", err);
        return;
      }
    }
    const f = filter.value.trim().toLowerCase();
    const rows = inventory.filter((r) => !f || (r.selector || "").toLowerCase().includes(f) || (r.provider_name || "").toLowerCase().includes(f));
    fill(invBox, h("p", { class: "muted", id: "inventory-count", "data-count": rows.length }, num(rows.length) + " models"), table([
      { title: "Model", cell: (r) => h("code", {}, (r.model && r.model.id) || r.selector) },
      { title: "Provider", cell: (r) => r.provider_name + (r.provider_type ? " (" + r.provider_type + ")" : "") },
      { title: "Categories", cell: (r) => ((r.model && r.model.metadata && r.model.metadata.categories) || []).join(", ") || "–", phone: false },
      { title: "Context", num: true, cell: (r) => (r.model && r.model.metadata && r.model.metadata.context_window ? num(r.model.metadata.context_window) : "–"), phone: false },
      { title: "In $/Mtok", num: true, cell: (r) => price(r.model && r.model.metadata && r.model.metadata.pricing, "input_per_mtok"), phone: false },
      { title: "Out $/Mtok", num: true, cell: (r) => price(r.model && r.model.metadata && r.model.metadata.pricing, "output_per_mtok"), phone: false },
      { title: "Access", cell: (r) => {
        const a = r.access || {};
        const on = a.effective_enabled !== false;
        return h("span", { class: on ? "ok" : "bad" }, (on ? "enabled" : "disabled") + ((a.user_paths || []).length ? " · " + a.user_paths.join(", ") : "") +
          (a.override ? " · by " + (a.override.source || "policy") : ""));
      } },
    ], rows, { empty: "No models in this category." }));
  }

  async function loadVM() {
    let list;
    try { list = listOf(await api("GET", "/admin/virtual-models"), "virtual_models", "models", "data"); } catch (err) { unavailable(vmBox, "Virtual models", err); return; }
    fill(vmBox, table([
      { title: "Name", cell: (v) => h("code", {}, v.source) },
      { title: "Targets", cell: (v) => (v.targets || []).map(targetText).join(", ") || (v.model ? targetText(v) : "access policy") },
      { title: "Strategy", cell: (v) => v.strategy || "round_robin", phone: false },
      { title: "User paths", cell: (v) => (v.user_paths || []).join(", ") || "all", phone: false },
      { title: "State", cell: (v) => (v.enabled === false ? "disabled" : "enabled") },
      { title: "", cell: (v) => (v.managed ? h("span", { class: "muted" }, "managed (read-only)") : h("div", { class: "actions" },
        h("button", { type: "button", class: "secondary small", "data-action": "edit", onclick: () => editVM(v) }, "Edit"),
        h("button", { type: "button", class: "danger small", "data-action": "delete", onclick: () => deleteVM(v) }, "Delete"))) },
    ], list, { empty: "No virtual models." }));
  }

  async function editVM(v) {
    const source = h("input", { name: "source", autocomplete: "off", placeholder: "alias or provider/model selector" });
    const targets = h("input", { name: "targets", autocomplete: "off", placeholder: "demo/mock-chat*2, other/model" });
    const strategy = h("select", { name: "strategy" }, ["round_robin", "cost"].map((s) => h("option", { value: s }, s)));
    const paths = h("input", { name: "user_paths", autocomplete: "off", placeholder: "/team, /other" });
    const enabled = h("input", { type: "checkbox", name: "enabled", checked: true });
    const affinity = h("input", { type: "checkbox", name: "session_affinity", checked: true });
    const desc = h("input", { name: "description", autocomplete: "off" });
    if (v) {
      source.value = v.source; targets.value = (v.targets || []).map((t) => (t.provider ? t.provider + "/" : "") + t.model + (t.weight && t.weight !== 1 ? "*" + t.weight : "")).join(", ");
      strategy.value = v.strategy || "round_robin"; paths.value = (v.user_paths || []).join(", ");
      enabled.checked = v.enabled !== false; affinity.checked = v.session_affinity !== false; desc.value = v.description || "";
    }
    const res = await dialog(v ? "Edit virtual model" : "New virtual model", h("div", { class: "form" },
      h("label", {}, "Name (source)", source), h("label", {}, "Targets (provider/model*weight, comma-separated; empty for an access policy)", targets),
      h("div", { class: "row" }, h("label", {}, "Strategy", strategy), h("label", {}, "User paths", paths)),
      h("label", {}, "Description", desc),
      h("label", { class: "check" }, enabled, "Enabled"), h("label", { class: "check" }, affinity, "Session affinity")), [
      { label: "Cancel", value: "cancel", class: "secondary" },
      { label: "Save", value: "save", check: async () => {
        const body = { source: source.value.trim(), targets: parseTargets(targets.value), strategy: strategy.value, enabled: enabled.checked,
          session_affinity: affinity.checked, description: desc.value.trim(),
          user_paths: paths.value.split(",").map((x) => x.trim()).filter(Boolean) };
        if (!body.source) return "A name is required.";
        if (v && v.source !== body.source) body.old_source = v.source;
        try { await api("PUT", "/admin/virtual-models", body); return true; } catch (err) { return err.message; }
      } },
    ]);
    if (res === "save") { toast("Virtual model saved."); await Promise.all([loadVM(), loadInventory()]); }
  }

  async function deleteVM(v) {
    if (!(await confirmAction("Delete virtual model", `Virtual model “${v.source}” will be deleted.`))) return;
    try { await api("DELETE", "/admin/virtual-models/" + encodeURIComponent(v.source)); toast("Virtual model deleted."); } catch (err) { toast(err.message, true); }
    await Promise.all([loadVM(), loadInventory()]);
  }

  async function loadFO() {
    let list;
    try { list = failoverRows(await api("GET", "/admin/failover")); } catch (err) { unavailable(foBox, "Failover rules", err); return; }
    fill(foBox, table([
      { title: "Primary model", cell: (r) => h("code", {}, r.primary_model) },
      { title: "Then try", cell: (r) => (r.targets || []).map(targetText).join(" → ") },
      { title: "", cell: (r) => (r.managed ? h("span", { class: "muted" }, "managed (read-only)") : h("div", { class: "actions" },
        h("button", { type: "button", class: "secondary small", "data-action": "edit", onclick: () => editFO(r) }, "Edit"),
        h("button", { type: "button", class: "danger small", "data-action": "delete", onclick: () => deleteFO(r) }, "Delete"))) },
    ], list, { empty: "No failover rules." }));
  }

  async function editFO(r) {
    const primary = h("input", { name: "primary_model", autocomplete: "off" });
    const targets = h("input", { name: "targets", autocomplete: "off", placeholder: "provider/model, other-model" });
    if (r) { primary.value = r.primary_model; primary.disabled = true; targets.value = (r.targets || []).map(targetText).join(", "); }
    const res = await dialog(r ? "Edit failover rule" : "New failover rule", h("div", { class: "form" },
      h("label", {}, "Primary model", primary), h("label", {}, "Fallbacks in order (comma-separated)", targets)), [
      { label: "Cancel", value: "cancel", class: "secondary" },
      { label: "Save", value: "save", check: async () => {
        const list = targets.value.split(",").map((x) => x.trim()).filter(Boolean);
        if (!primary.value.trim() || !list.length) return "A primary model and at least one fallback are required.";
        try { await api("PUT", "/admin/failover", { primary_model: primary.value.trim(), targets: list }); return true; } catch (err) { return err.message; }
      } },
    ]);
    if (res === "save") { toast("Failover rule saved."); await loadFO(); }
  }

  async function deleteFO(r) {
    if (!(await confirmAction("Delete failover rule", `Failover for “${r.primary_model}” will be deleted.`))) return;
    try { await api("DELETE", "/admin/failover/" + encodeURIComponent(r.primary_model)); toast("Failover rule deleted."); } catch (err) { toast(err.message, true); }
    await loadFO();
  }

  await Promise.all([loadInventory(), loadVM(), loadFO()]);
}
