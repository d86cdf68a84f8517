// The conversation view: the audit entries of one session as chat
// bubbles, each turn showing the messages it added and the answer.

import { api, qs } from "./api.js";
import { h, fill, when, ns } from "./dom.js";

/** textOf flattens message content (string or content parts) to text. */
function textOf(c) {
  if (c === null || c === undefined) return "";
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map((p) => (typeof p === "string" ? p : p.text || p.input_text || p.output_text || (p.type ? "[" + p.type + "]" : ""))).filter(Boolean).join("\n");
  if (typeof c === "object") return c.text || JSON.stringify(c);
  return String(c);
}

/** requestMessages returns [{role, text}] of a chat, messages or responses body. */
export function requestMessages(body) {
  if (!body || typeof body !== "object") return [];
  const out = [];
  if (body.system) out.push({ role: "system", text: textOf(body.system) });
  if (body.instructions) out.push({ role: "system", text: textOf(body.instructions) });
  const list = body.messages || (Array.isArray(body.input) ? body.input : body.input ? [{ role: "user", content: body.input }] : []);
  for (const m of list) out.push({ role: m.role || m.type || "user", text: textOf(m.content !== undefined ? m.content : m.output || m) });
  return out;
}

/** answerText returns the assistant text of a chat, messages or responses answer. */
export function answerText(body) {
  if (!body || typeof body !== "object") return typeof body === "string" ? body : "";
  if (body.choices && body.choices[0]) {
    const c = body.choices[0];
    return textOf((c.message && c.message.content) || (c.delta && c.delta.content) || c.text);
  }
  if (Array.isArray(body.content)) return textOf(body.content);
  if (Array.isArray(body.output)) return body.output.map((o) => textOf(o.content)).filter(Boolean).join("\n");
  if (body.error) return "error: " + (body.error.message || JSON.stringify(body.error));
  return "";
}

/** PAGE_BYTES bounds the bodies one read of the session brings (about 1 MB). */
const PAGE_BYTES = 1000000;

/**
 * conversation loads and draws the session around entry id into box: the
 * turns ending with it, about PAGE_BYTES of bodies at a time, and earlier
 * turns a page at a time on request.
 */
export async function conversation(box, id) {
  fill(box, h("p", { class: "muted" }, "Loading the session…"));
  let entries = [];
  let anchor = id;
  let earlier = false;

  async function page(before) {
    const conv = await api("GET", "/admin/audit/conversation" + qs({ log_id: id, limit: 40, max_bytes: PAGE_BYTES, before }));
    anchor = conv.anchor_id;
    earlier = conv.earlier;
    entries = (conv.entries || []).concat(entries);
  }

  async function more(button) {
    button.disabled = true;
    try { await page(entries[0].id); } catch (err) {
      button.disabled = false;
      box.append(h("p", { class: "error", role: "alert" }, "Could not load earlier turns: " + err.message));
      return;
    }
    draw();
  }

  function draw() {
    const chat = h("div", { class: "chat", "data-turns": entries.length });
    let seen = 0;
    for (const e of entries) {
      const d = e.data || {};
      const msgs = requestMessages(d.request_body);
      const turn = [when(e.timestamp), e.requested_model, String(e.status_code), ns(e.duration_ns), e.id === anchor ? "this request" : ""];
      chat.append(h("div", { class: "turn", "data-id": e.id }, turn.filter(Boolean).join(" · ")));
      const fresh = msgs.length > seen ? msgs.slice(seen) : msgs.slice(-1);
      for (const m of fresh) chat.append(h("div", { class: "bubble " + (["user", "assistant", "system", "tool"].includes(m.role) ? m.role : "user") }, h("span", { class: "who" }, m.role), m.text));
      const ans = answerText(d.response_body);
      if (ans) chat.append(h("div", { class: "bubble assistant" }, h("span", { class: "who" }, "assistant"), ans));
      seen = msgs.length + (ans ? 1 : 0);
    }
    fill(box,
      earlier ? h("button", { type: "button", class: "secondary", id: "earlier-turns", onclick: (ev) => more(ev.currentTarget) }, "Show earlier turns") : null,
      entries.length ? chat : h("p", { class: "muted" }, "No session entries."));
  }

  try { await page(""); } catch (err) {
    fill(box, h("p", { class: "error", role: "alert" }, "Could not load the conversation: " + err.message));
    return;
  }
  draw();
}
