// Small SVG charts: stacked bars and lines with gaps. Colours come from
// CSS classes, so both themes apply; sizes scale with the container.

const NS = "http://www.w3.org/2000/svg";
const W = 640, H = 220, L = 48, R = 10, T = 10, B = 28;

function s(tag, attrs, ...kids) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
  for (const k of kids) el.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return el;
}

function niceMax(v) {
  if (!(v > 0)) return 1;
  const p = Math.pow(10, Math.floor(Math.log10(v)));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

// frame draws the grid and the axes' labels. A tick whose label reads as
// the one below it (a count axis up to 2 has no 0.5) is left out.
function frame(labels, max, fmtY) {
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, role: "img" });
  let last = null;
  for (let i = 0; i <= 4; i++) {
    const label = fmtY((max * i) / 4);
    if (label === last) continue;
    last = label;
    const y = T + (H - T - B) * (1 - i / 4);
    svg.append(s("line", { class: "grid", x1: L, x2: W - R, y1: y, y2: y }));
    svg.append(s("text", { x: L - 4, y: y + 3, "text-anchor": "end" }, label));
  }
  const n = labels.length;
  const step = Math.max(1, Math.ceil(n / 8));
  for (let i = 0; i < n; i += step) {
    svg.append(s("text", { x: xCenter(i, n), y: H - 8, "text-anchor": "middle" }, labels[i]));
  }
  return svg;
}

function xCenter(i, n) {
  return L + ((W - L - R) * (i + 0.5)) / Math.max(1, n);
}

function yOf(v, max) {
  return T + (H - T - B) * (1 - v / max);
}

function legend(series) {
  const d = document.createElement("div");
  d.className = "legend";
  for (const se of series) {
    const i = document.createElement("i");
    i.className = se.cls;
    const span = document.createElement("span");
    span.append(i, se.name);
    d.append(span);
  }
  return d;
}

function wrap(svg, series, title) {
  const d = document.createElement("div");
  d.className = "chart";
  if (title) svg.prepend(s("title", {}, title));
  d.append(svg, legend(series));
  return d;
}

/**
 * stackedBars draws one bar per label, its series stacked:
 * series = [{name, cls, values: [...]}].
 */
export function stackedBars(labels, series, fmtY = String, title = "") {
  const n = labels.length;
  const totals = labels.map((_, i) => series.reduce((a, se) => a + (Number(se.values[i]) || 0), 0));
  const max = niceMax(Math.max(0, ...totals));
  const svg = frame(labels, max, fmtY);
  const bw = Math.min(36, Math.max(1, ((W - L - R) / Math.max(1, n)) * 0.75));
  for (let i = 0; i < n; i++) {
    let acc = 0;
    for (const se of series) {
      const v = Number(se.values[i]) || 0;
      if (v <= 0) continue;
      const y0 = yOf(acc, max), y1 = yOf(acc + v, max);
      const r = s("rect", { class: se.cls, x: xCenter(i, n) - bw / 2, y: y1, width: bw, height: Math.max(0.5, y0 - y1) });
      r.append(s("title", {}, `${labels[i]} ${se.name}: ${fmtY(v)}`));
      svg.append(r);
      acc += v;
    }
  }
  return wrap(svg, series, title);
}

/**
 * lines draws one line per series; a null value leaves a gap:
 * series = [{name, cls, values: [number|null, ...]}].
 */
export function lines(labels, series, fmtY = String, title = "") {
  const n = labels.length;
  let top = 0;
  for (const se of series) for (const v of se.values) if (v !== null && v !== undefined) top = Math.max(top, Number(v));
  const max = niceMax(top);
  const svg = frame(labels, max, fmtY);
  for (const se of series) {
    let d = "", open = false;
    se.values.forEach((v, i) => {
      if (v === null || v === undefined) { open = false; return; }
      const x = xCenter(i, n), y = yOf(Number(v), max);
      d += (open ? "L" : "M") + x.toFixed(1) + " " + y.toFixed(1) + " ";
      open = true;
      const dot = s("circle", { class: se.cls, cx: x, cy: y, r: 2.5 });
      dot.append(s("title", {}, `${labels[i]} ${se.name}: ${fmtY(Number(v))}`));
      svg.append(dot);
    });
    if (d) svg.append(s("path", { class: "line " + se.cls, d }));
  }
  return wrap(svg, series, title);
}

/** seriesClass returns the colour class of series i. */
export function seriesClass(i) {
  return "c" + ((i % 6) + 1);
}
