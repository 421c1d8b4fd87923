// Helpers shared by the run and bench views. d3 (v3, Debian libjs-d3) and highlight.js (Debian
// libjs-highlight.js) are inlined ahead of this script when they were found at report time.
"use strict";
var kp = {};
kp.data = JSON.parse(document.getElementById("kp-data").textContent);
kp.haveD3 = typeof d3 !== "undefined";
kp.haveHighlight = typeof hljs !== "undefined";

kp.el = function (tag, attrs, children) {
  var e = document.createElement(tag);
  Object.keys(attrs || {}).forEach(function (k) {
    if (k === "text") e.textContent = attrs[k];
    else if (k === "html") e.innerHTML = attrs[k];
    else e.setAttribute(k, attrs[k]);
  });
  (children || []).forEach(function (c) { if (c) e.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
  return e;
};
kp.section = function (id, title, parent) {
  var s = kp.el("section", { id: id }, [kp.el("h2", { text: title })]);
  (parent || document.getElementById("kp-report")).appendChild(s);
  return s;
};
kp.fmt = {
  x: function (v) { return v == null ? "-" : v.toFixed(v >= 10 ? 1 : 3) + "x"; },
  us: function (s) { return s == null ? "-" : (s * 1e6).toFixed(s < 1e-4 ? 2 : 1) + " µs"; },
  s: function (s) { return s == null ? "-" : s.toFixed(1) + " s"; },
  pct: function (f) { return f == null ? "-" : (100 * f).toFixed(1) + "%"; },
  usd: function (d) { return "$" + (d || 0).toFixed(d >= 1 ? 2 : 4); },
  j: function (v) { return v == null ? "-" : (v >= 1 ? v.toFixed(3) + " J" : (v * 1e3).toFixed(3) + " mJ"); },
  int: function (n) { return (n || 0).toLocaleString("en-US"); },
  si: function (v) { return d3.format(".3s")(v); }
};
kp.stats = function (parent, items) {
  var box = kp.el("div", { class: "kp-stats" });
  items.forEach(function (it) { box.appendChild(kp.el("div", { class: "kp-stat" }, [kp.el("b", { text: it[1] }), kp.el("span", { text: it[0] })])); });
  parent.appendChild(box);
};
kp.table = function (parent, headers, rows, numeric) {
  var t = kp.el("table", { class: "kp-table" });
  t.appendChild(kp.el("tr", {}, headers.map(function (h) { return kp.el("th", { text: h }); })));
  rows.forEach(function (r) {
    t.appendChild(kp.el("tr", {}, r.map(function (c, i) {
      return kp.el("td", { text: String(c), class: numeric && numeric[i] ? "kp-num" : "" });
    })));
  });
  parent.appendChild(kp.el("div", { class: "kp-scroll" }, [t]));
  return t;
};
kp.noD3 = function (parent) {
  parent.appendChild(kp.el("p", { class: "kp-muted", text: "Not drawn: d3 was not installed when this report was made (Debian libjs-d3)." }));
};
// An SVG chart frame: margins, scales and axes. x/y are {scale: d3 scale, label}.
kp.frame = function (parent, id, width, height, x, y) {
  var m = { top: 12, right: 16, bottom: 40, left: 64 };
  var svg = d3.select(parent).append("svg").attr("id", id).attr("width", width).attr("height", height);
  var g = svg.append("g").attr("transform", "translate(" + m.left + "," + m.top + ")");
  var w = width - m.left - m.right, h = height - m.top - m.bottom;
  x.scale.range([0, w]);
  y.scale.range([h, 0]);
  var xAxis = d3.svg.axis().scale(x.scale).orient("bottom").ticks(x.ticks || 8, x.format);
  var yAxis = d3.svg.axis().scale(y.scale).orient("left").ticks(y.ticks || 6, y.format);
  g.append("g").attr("class", "axis").attr("transform", "translate(0," + h + ")").call(xAxis);
  g.append("g").attr("class", "axis").call(yAxis);
  g.append("text").attr("x", w / 2).attr("y", h + 34).attr("text-anchor", "middle").text(x.label);
  g.append("text").attr("transform", "rotate(-90)").attr("x", -h / 2).attr("y", -50).attr("text-anchor", "middle").text(y.label);
  return { svg: svg, g: g, w: w, h: h };
};
kp.statusColor = {
  ok: "#2f9e44", compile_error: "#8d6e63", rejected_by_guard: "#6c4ab6", crash: "#d6336c", timeout: "#e8590c",
  out_of_memory: "#c2255c", incorrect: "#e03131", invalid_timing: "#f59f00", pending: "#ffffff"
};
// Correct nodes: darker green the faster they are; slower than the baseline turns to olive.
kp.nodeColor = function (n) {
  if (n.status !== "ok") return kp.statusColor[n.status] || "#999";
  var s = n.speedup || 1;
  return s >= 1 ? d3.interpolateRgb("#b2f2bb", "#0b6e2b")(Math.min(1, Math.log(s) / Math.log(4))) : "#c0ca33";
};
kp.legend = function (parent, statuses) {
  var box = kp.el("div", { class: "kp-legend" });
  statuses.forEach(function (s) {
    var dot = kp.el("i", {});
    dot.style.background = kp.statusColor[s];
    box.appendChild(kp.el("span", {}, [dot, s]));
  });
  parent.appendChild(box);
};
kp.highlightLine = function (text) {
  if (!kp.haveHighlight) return null;
  try { return hljs.highlight("cpp", text, true).value; } catch (e) { return null; }
};
