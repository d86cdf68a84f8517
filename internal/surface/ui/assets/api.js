// The admin API client. The key the operator typed lives in this tab's
// sessionStorage only: it is gone when the tab closes and is never written
// to localStorage, a cookie or a URL.

const KEY = "modelgate.adminKey";

/** ApiError is a failed admin call: status, gateway error code and message. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** key returns the stored key, or "". */
export function key() {
  return sessionStorage.getItem(KEY) || "";
}

/** setKey stores the key for this tab. */
export function setKey(k) {
  sessionStorage.setItem(KEY, k);
}

/** forget removes the stored key. */
export function forget() {
  sessionStorage.removeItem(KEY);
}

/** authHeaders returns extra plus the Authorization header carrying the key. */
export function authHeaders(extra) {
  const h = Object.assign({}, extra);
  const k = key();
  if (k) h.Authorization = "Bearer " + k;
  return h;
}

let onAuthLost = () => {};

/**
 * onUnauthorized sets what happens when a call answers 401, or 403 for a
 * key without dashboard access.
 */
export function onUnauthorized(fn) {
  onAuthLost = fn;
}

/**
 * api calls the admin API and returns the decoded JSON answer (null for
 * 204). A gateway error becomes an ApiError.
 */
export async function api(method, path, body, opts = {}) {
  const init = { method, headers: authHeaders(), cache: "no-store", credentials: "omit" };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let resp;
  try {
    resp = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, "network_error", "the gateway did not answer: " + e.message);
  }
  if (resp.status === 204) return null;
  const text = await resp.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!resp.ok) throw failure(resp, data, opts.quiet);
  return data;
}

/**
 * refusal reads the gateway error of a failed answer (one that api did not
 * make, such as the live stream's) as api does: it returns the ApiError
 * and sends the operator back to sign-in when the key was refused or lost
 * its dashboard access.
 */
export async function refusal(resp) {
  let data = null;
  try { data = await resp.json(); } catch { data = null; }
  return failure(resp, data, false);
}

// failure turns a failed answer and its decoded body into an ApiError. A
// key refused (401), or one that lost its dashboard access (403
// dashboard_access_denied), sends the operator back to sign-in unless
// quiet.
function failure(resp, data, quiet) {
  const e = (data && data.error) || {};
  const err = new ApiError(resp.status, e.code || "", e.message || resp.status + " " + resp.statusText);
  const lost = resp.status === 401 || (resp.status === 403 && e.code === "dashboard_access_denied");
  if (lost && !quiet) onAuthLost(err);
  return err;
}

/** qs builds a query string from the non-empty values of params. */
export function qs(params) {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") u.set(k, v);
  const s = u.toString();
  return s ? "?" + s : "";
}
