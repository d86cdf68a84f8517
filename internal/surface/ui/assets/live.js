// The live log stream (GET /admin/live/logs) read with fetch, so the key
// travels in the Authorization header (EventSource cannot send one). The
// reader remembers the last event id and reconnects with ?cursor=<id> after
// a drop; a reset event means the missed events are gone and the page must
// reload from the REST endpoints.

import { authHeaders, refusal } from "./api.js";
import { h, fill } from "./dom.js";

/**
 * followLive opens the live stream for a page when the dashboard's config
 * (features) turns it on, with handlers as for openLive, and keeps el
 * saying the stream's state: live, reconnecting or not available, or why
 * there is none. offWhy, the page's own reason (its feature is off), wins.
 */
export function followLive(el, features, offWhy, handlers) {
  if (offWhy) {
    fill(el, offWhy);
    return;
  }
  if (!features.dashboard_live_logs_enabled) {
    fill(el, "Live logs are off (DASHBOARD_LIVE_LOGS_ENABLED)");
    return;
  }
  openLive({
    ...handlers,
    state: (on, why) => fill(el, h("span", { class: "live-dot" + (on ? " on" : "") }),
      on ? "Live" : why === "off" ? "Live: not available" : "Live: reconnecting"),
  });
}

/**
 * openLive streams events to handlers {audit(preview), usage(record),
 * reset(data), state(connected, why)} until the returned stop() is called.
 * When the stream is switched off (404) or refused (401, 403) it calls
 * state(false, "off") and stops trying; a refused key, or one that lost
 * its dashboard access, also sends the operator back to sign-in, as api
 * does.
 */
export function openLive(handlers) {
  let cursor = null;
  let stopped = false;
  let ctrl = null;
  let retry = 500;
  const state = handlers.state || (() => {});

  async function connect() {
    while (!stopped) {
      ctrl = new AbortController();
      try {
        const url = "/admin/live/logs" + (cursor !== null ? "?cursor=" + cursor : "");
        const resp = await fetch(url, { headers: authHeaders({ Accept: "text/event-stream" }), cache: "no-store", signal: ctrl.signal });
        if (resp.status === 404) { state(false, "off"); return; }
        if (resp.status === 401 || resp.status === 403) {
          // As for every admin call: a key refused, or one that lost its
          // dashboard access, sends the operator back to sign-in.
          await refusal(resp);
          state(false, "off");
          return;
        }
        if (!resp.ok || !resp.body) throw new Error("live stream answered " + resp.status);
        state(true);
        retry = 500;
        await read(resp.body.getReader());
      } catch (e) {
        if (stopped) return;
      }
      state(false);
      if (stopped) return;
      await new Promise((r) => setTimeout(r, retry));
      retry = Math.min(retry * 2, 10000);
    }
  }

  async function read(reader) {
    const dec = new TextDecoder();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += dec.decode(value, { stream: true });
      let i;
      while ((i = buf.search(/\r?\n\r?\n/)) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + (buf[i] === "\r" ? 4 : 2));
        dispatch(block);
      }
    }
  }

  function dispatch(block) {
    let event = "message", id = null, data = "";
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith(":")) continue;
      const c = line.indexOf(":");
      const field = c < 0 ? line : line.slice(0, c);
      const val = c < 0 ? "" : line.slice(c + 1).replace(/^ /, "");
      if (field === "event") event = val;
      else if (field === "id") id = val;
      else if (field === "data") data += (data ? "\n" : "") + val;
    }
    if (id !== null && id !== "" && /^\d+$/.test(id)) cursor = id;
    let payload = null;
    try { payload = data ? JSON.parse(data) : null; } catch { payload = null; }
    if (event === "reset") { if (handlers.reset) handlers.reset(payload); return; }
    if (event === "audit" && handlers.audit && payload) handlers.audit(payload);
    if (event === "usage" && handlers.usage && payload) handlers.usage(payload);
  }

  connect();
  return () => { stopped = true; if (ctrl) ctrl.abort(); };
}
