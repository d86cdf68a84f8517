// Models: the inventory (GET /admin/models, a bare array of
// {provider_name, provider_type, selector, model, access}) with a category
// filter, catalog metadata and access state; virtual models
// (GET /admin/virtual-models → {virtual_models: [row]}, PUT the row,
// DELETE /admin/virtual-models/{source}) and failover routes
// (GET /admin/failover → {routes: [{primary_model, targets, managed}]},
// PUT {primary_model, targets}, DELETE /admin/failover/{primary_model})
// with create, edit and delete. Rows with managed: true come from
// configuration and are read-only.

import { api, qs } from "./api.js";
import { h, fill, num, table, toast, dialog, confirmAction } from "./dom.js";

const CATEGORIES = ["all", "text_generation", "embedding", "image", "audio", "video", "utility"];

/** price shows a per-million-token price of a catalog pricing object. */
function price(p, k) {
  return p && typeof p[k] === "number" ? "$" + p[k] : "–";
}

function failed(box, what, err) {
  fill(box, h("p", { class: "error", "data-unavailable": what }, "Could not load " + what + ": " + err.message));
}

/** targetText shows a virtual-model target {provider, model, weight}. */
function targetText(t) {
  return t.provider + "/" + t.model + (t.weight && t.weight !== 1 ? " ×" + t.weight : "");
}

/** targetInput is a target as the edit form writes it: provider/model*weight. */
function targetInput(t) {
  return t.provider + "/" + t.model + (t.weight && t.weight !== 1 ? "*" + t.weight : "");
}

/**
 * parseTargets reads "provider/model*weight" items separated by commas
 * into targets; it throws for an item without a provider.
 */
function parseTargets(s) {
  return s.split(",").map((x) => x.trim()).filter(Boolean).map((x) => {
    const [ref, w] = x.split("*");
    const i = ref.indexOf("/");
    if (i <= 0 || i === ref.length - 1) throw new Error(`target “${x}”: write it as provider/model`);
    const t = { provider: ref.slice(0, i), model: ref.slice(i + 1) };
    if (w !== undefined) {
      t.weight = Number(w);
      if (w.trim() === "" || !Number.isFinite(t.weight) || t.weight <= 0) {
        throw new Error(`target “${x}”: the weight after * must be a positive number`);
      }
    }
    return t;
  });
}

/** writeBody is the PUT body of a virtual model: only the fields the API accepts. */
function writeBody(v) {
  const body = {};
  for (const k of ["source", "model", "provider_name", "description", "enabled", "strategy", "targets", "user_paths", "session_affinity", "slowdown"]) {
    if (v[k] !== undefined && v[k] !== null && v[k] !== "") body[k] = v[k];
  }
  return body;
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
      h("button", { type: "button", id: "new-failover", onclick: () => editFO(null) }, "New failover route")), foBox));

  let inventory = null;
  async function loadInventory(cached) {
    if (!cached || !inventory) {
      try {
        const res = await api("GET", "/admin/models" + qs({ category: category === "all" ? "" : category }));
        inventory = Array.isArray(res) ? res : [];
      } catch (err) {
        inventory = null;
        failed(invBox, "the model inventory", err);
        return;
      }
    }
    const f = filter.value.trim().toLowerCase();
    const rows = inventory.filter((r) => !f || r.selector.toLowerCase().includes(f) || r.provider_name.toLowerCase().includes(f));
    const meta = (r) => (r.model && r.model.metadata) || {};
    const t = table([
      { title: "Model", cell: (r) => h("code", {}, r.model.id) },
      { title: "Provider", cell: (r) => r.provider_name + " (" + r.provider_type + ")" },
      { title: "Categories", cell: (r) => (meta(r).categories || []).join(", ") || "–", phone: false },
      { title: "Context", num: true, cell: (r) => (meta(r).context_window ? num(meta(r).context_window) : "–"), phone: false },
      { title: "In $/Mtok", num: true, cell: (r) => price(meta(r).pricing, "input_per_mtok"), phone: false },
      { title: "Out $/Mtok", num: true, cell: (r) => price(meta(r).pricing, "output_per_mtok"), phone: false },
      { title: "Access", cell: (r) => {
        const a = r.access;
        return h("span", { class: a.effective_enabled ? "ok" : "bad" }, (a.effective_enabled ? "enabled" : "disabled") +
          (a.user_paths.length ? " · " + a.user_paths.join(", ") : "") + (a.override ? " · by " + a.override.source : ""));
      } },
    ], rows, { empty: "No models in this category." });
    rows.forEach((r, i) => { t.querySelectorAll("tbody tr")[i].dataset.selector = r.selector; });
    fill(invBox, h("p", { class: "muted", id: "inventory-count", "data-count": rows.length }, num(rows.length) + " models"), t);
  }

  const actions = (r, edit, del) => (r.managed
    ? h("span", { class: "muted", "data-managed": "" }, "managed (read-only)")
    : h("div", { class: "actions" },
      h("button", { type: "button", class: "secondary small", "data-action": "edit", onclick: () => edit(r) }, "Edit"),
      h("button", { type: "button", class: "danger small", "data-action": "delete", onclick: () => del(r) }, "Delete")));

  // The virtual models last loaded, so that a new one does not silently
  // replace one of the same name.
  let currentVMs = [];

  async function loadVM() {
    let list;
    try { list = (await api("GET", "/admin/virtual-models")).virtual_models; } catch (err) { failed(vmBox, "virtual models", err); return; }
    currentVMs = list;
    const t = table([
      { title: "Name", cell: (v) => h("code", {}, v.source) },
      { title: "Targets", cell: (v) => (v.targets || []).map(targetText).join(", ") || "access policy" },
      { title: "Strategy", cell: (v) => ((v.targets || []).length ? v.strategy || "round_robin" : "–"), phone: false },
      { title: "User paths", cell: (v) => (v.user_paths || []).join(", ") || "all", phone: false },
      { title: "State", cell: (v) => (v.enabled === false ? "disabled" : "enabled") },
      { title: "", actions: true, cell: (v) => actions(v, editVM, deleteVM) },
    ], list, { empty: "No virtual models." });
    list.forEach((v, i) => { Object.assign(t.querySelectorAll("tbody tr")[i].dataset, { source: v.source, managed: String(v.managed) }); });
    fill(vmBox, t);
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
      source.value = v.source; targets.value = (v.targets || []).map(targetInput).join(", ");
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
        let list;
        try { list = parseTargets(targets.value); } catch (err) { return err.message; }
        // Fields the form does not show (model, provider_name, slowdown)
        // keep their values on an edit.
        const body = writeBody(Object.assign({}, v || {}, {
          source: source.value.trim(), targets: list.length ? list : undefined,
          strategy: list.length ? strategy.value : undefined, enabled: enabled.checked,
          session_affinity: affinity.checked, description: desc.value.trim(),
          user_paths: paths.value.split(",").map((x) => x.trim()).filter(Boolean),
        }));
        if (!body.source) return "A name is required.";
        if (v && v.source !== body.source) body.old_source = v.source;
        if ((!v || v.source !== body.source) && currentVMs.some((o) => o.source === body.source)) {
          return `A virtual model named “${body.source}” exists already: edit that one instead.`;
        }
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

  // The failover routes last loaded (see currentVMs).
  let currentFO = [];

  async function loadFO() {
    let list;
    try { list = (await api("GET", "/admin/failover")).routes; } catch (err) { failed(foBox, "failover routes", err); return; }
    currentFO = list;
    const t = table([
      { title: "Primary model", cell: (r) => h("code", {}, r.primary_model) },
      { title: "Then try", cell: (r) => r.targets.join(" → ") },
      { title: "", actions: true, cell: (r) => actions(r, editFO, deleteFO) },
    ], list, { empty: "No failover routes." });
    list.forEach((r, i) => { Object.assign(t.querySelectorAll("tbody tr")[i].dataset, { primary: r.primary_model, managed: String(r.managed) }); });
    fill(foBox, t);
  }

  async function editFO(r) {
    const primary = h("input", { name: "primary_model", autocomplete: "off", placeholder: "provider/model or model" });
    const targets = h("input", { name: "targets", autocomplete: "off", placeholder: "provider/model, other-model" });
    if (r) { primary.value = r.primary_model; primary.disabled = true; targets.value = r.targets.join(", "); }
    const res = await dialog(r ? "Edit failover route" : "New failover route", h("div", { class: "form" },
      h("label", {}, "Primary model", primary), h("label", {}, "Fallbacks in order (comma-separated)", targets)), [
      { label: "Cancel", value: "cancel", class: "secondary" },
      { label: "Save", value: "save", check: async () => {
        const list = targets.value.split(",").map((x) => x.trim()).filter(Boolean);
        if (!primary.value.trim() || !list.length) return "A primary model and at least one fallback are required.";
        if (!r && currentFO.some((o) => o.primary_model === primary.value.trim())) {
          return `A failover route for “${primary.value.trim()}” exists already: edit that one instead.`;
        }
        try { await api("PUT", "/admin/failover", { primary_model: primary.value.trim(), targets: list }); return true; } catch (err) { return err.message; }
      } },
    ]);
    if (res === "save") { toast("Failover route saved."); await loadFO(); }
  }

  async function deleteFO(r) {
    if (!(await confirmAction("Delete failover route", `Failover for “${r.primary_model}” will be deleted.`))) return;
    try { await api("DELETE", "/admin/failover/" + encodeURIComponent(r.primary_model)); toast("Failover route deleted."); } catch (err) { toast(err.message, true); }
    await loadFO();
  }

  await Promise.all([loadInventory(), loadVM(), loadFO()]);
}
