// The run view: summary, search tree with node details, speedup/energy against evaluations, the
// roofline, findings per node, the best kernel's diff and the LLM exchanges.
"use strict";
(function () {
  var data = kp.data;
  if (data.kind !== "run") return;
  var nodes = data.nodes, byId = {};
  nodes.forEach(function (n) { byId[n.id] = n; });
  var best = data.best ? byId[data.best.node] : null;
  var evaluated = nodes.filter(function (n) { return n.evaluation > 0; }).sort(function (a, b) { return a.evaluation - b.evaluation; });
  var exchangesByNode = {};
  data.llm.forEach(function (x) { (exchangesByNode[x.node] = exchangesByNode[x.node] || []).push(x); });

  document.getElementById("kp-title").textContent = "kernelpro report: " + data.run.task + ", run " + data.run.id;
  document.getElementById("kp-subtitle").textContent = data.run.status + (data.run.stop_reason ? " (" + data.run.stop_reason + ")" : "") +
    " · started " + data.run.created_at + " · objective " + (data.run.config.objective || "time");

  var t = data.totals;
  var summary = kp.section("kp-summary", "Summary");
  kp.stats(summary, [
    ["best speedup over the start", best ? kp.fmt.x(best.speedup) : "none correct"],
    ["best median", best ? kp.fmt.us(best.median_s) : "-"],
    ["of the roofline floor", best ? kp.fmt.pct(best.roofline_fraction) : "-"],
    ["best joules per call", best && best.energy ? kp.fmt.j(best.energy.joules_per_call) : "not measured"],
    ["nodes", String(nodes.length)], ["evaluations", String(evaluated.length)],
    ["GPU time (verify + time)", kp.fmt.s(t.gpu_s)], ["compile time", kp.fmt.s(t.compile_s)], ["wall time", kp.fmt.s(t.elapsed_s)],
    ["LLM tokens in / out", kp.fmt.int(t.tokens_in) + " / " + kp.fmt.int(t.tokens_out)], ["LLM cost", kp.fmt.usd(t.cost_usd)],
    ["LLM exchanges", String(t.llm_exchanges)]
  ]);

  // --- node details (filled on click) ---
  var row = kp.el("div", { class: "kp-row" });
  document.getElementById("kp-report").appendChild(row);
  var treeSection = kp.section("kp-tree-section", "Search tree (" + nodes.length + " nodes; click a node)", row);
  var detailSection = kp.section("kp-details-section", "Node", row);
  var details = kp.el("div", { id: "kp-node-details", class: "kp-muted", text: "Click a node, a point or a finding." });
  detailSection.appendChild(details);

  function findingList(n) {
    var list = kp.el("ol", { class: "kp-findings" });
    (n.findings || []).forEach(function (f) {
      var ev = kp.el("div", { class: "kp-evidence" });
      (f.evidence || []).forEach(function (e) { ev.appendChild(kp.el("div", { text: (e.kind ? e.kind + ": " : "") + e.name + " = " + e.value })); });
      list.appendChild(kp.el("li", {}, [kp.el("b", { text: f.tool }), " (could save ~" + kp.fmt.pct(f.estimated_gain) + "): " + (f.summary || ""),
        f.guidance ? kp.el("div", { class: "kp-muted", text: "fix: " + f.guidance }) : null, ev]));
    });
    return list;
  }
  function showNode(id) {
    var n = byId[id];
    d3.selectAll(".kp-selected").classed("kp-selected", false);
    d3.selectAll("[data-node='" + id + "']").classed("kp-selected", true);
    details.className = "";
    details.innerHTML = "";
    var params = Object.keys(n.params || {}).map(function (k) { return k + "=" + n.params[k]; }).join(", ");
    var rows = [["node", n.id + (n.parent != null ? " (child of " + n.parent + ")" : " (the start)")], ["origin", n.origin],
      ["status", n.status], ["median", kp.fmt.us(n.median_s)], ["speedup over the start", kp.fmt.x(n.speedup)],
      ["speedup over the reference", kp.fmt.x(n.speedup_reference)], ["of the roofline floor", kp.fmt.pct(n.roofline_fraction)],
      ["reward", n.reward == null ? "-" : n.reward.toFixed(3)], ["roofline class", n.roofline_class || "-"], ["parameters", params || "-"]];
    if (n.energy) rows.push(["joules per call", kp.fmt.j(n.energy.joules_per_call) + " ± " + kp.fmt.j(n.energy.joules_per_call_stddev)]);
    if (n.close_reason) rows.push(["closed", n.close_reason]);
    var table = kp.el("table", {});
    rows.forEach(function (r) { table.appendChild(kp.el("tr", {}, [kp.el("th", { text: r[0] }), kp.el("td", { text: r[1] })])); });
    details.appendChild(table);
    if (n.rationale) details.appendChild(kp.el("p", { text: "Why: " + n.rationale }));
    if (n.message) details.appendChild(kp.el("pre", { class: "kp-text", text: n.message }));
    if ((n.findings || []).length) { details.appendChild(kp.el("h3", { text: "Findings" })); details.appendChild(findingList(n)); }
    (exchangesByNode[n.id] || []).forEach(function (x) { details.appendChild(exchangeBlock(x)); });
  }
  kp.showNode = showNode;

  // --- the tree: depth downwards, one circle per node ---
  if (!kp.haveD3) kp.noD3(treeSection);
  else {
    var children = {};
    nodes.forEach(function (n) { if (n.parent != null) (children[n.parent] = children[n.parent] || []).push(n); });
    function hier(n) { return { node: n, children: (children[n.id] || []).map(hier) }; }
    var layout = d3.layout.tree().nodeSize([46, 64]);
    var laid = layout.nodes(hier(nodes[0]));
    var xs = laid.map(function (d) { return d.x; });
    var minX = d3.min(xs), maxX = d3.max(xs), depth = d3.max(laid, function (d) { return d.y; });
    var width = Math.max(420, maxX - minX + 60), height = depth + 70;
    var holder = kp.el("div", { class: "kp-scroll" });
    treeSection.appendChild(holder);
    kp.legend(treeSection, ["ok", "compile_error", "incorrect", "crash", "timeout", "invalid_timing", "rejected_by_guard", "pending"]);
    var svg = d3.select(holder).append("svg").attr("id", "kp-tree").attr("width", width).attr("height", height);
    var g = svg.append("g").attr("transform", "translate(" + (30 - minX) + ",24)");
    g.selectAll("path.kp-link").data(layout.links(laid)).enter().append("path").attr("class", "kp-link")
      .attr("d", d3.svg.diagonal());
    var node = g.selectAll("g.kp-tree-item").data(laid).enter().append("g").attr("class", "kp-tree-item")
      .attr("transform", function (d) { return "translate(" + d.x + "," + d.y + ")"; });
    node.append("circle").attr("class", function (d) { return "kp-tree-node" + (best && d.node.id === best.id ? " kp-best" : ""); })
      .attr("data-node", function (d) { return d.node.id; }).attr("data-status", function (d) { return d.node.status; })
      .attr("r", function (d) { return d.node.status === "ok" ? 9 : 7; }).style("fill", function (d) { return kp.nodeColor(d.node); })
      .on("click", function (d) { showNode(d.node.id); })
      .append("title").text(function (d) { return "node " + d.node.id + ": " + d.node.status + (d.node.speedup ? ", " + kp.fmt.x(d.node.speedup) : ""); });
    node.append("text").attr("y", 21).attr("text-anchor", "middle")
      .text(function (d) { return d.node.status === "ok" && d.node.speedup ? kp.fmt.x(d.node.speedup) : d.node.id; });
  }

  // --- speedup (and energy) against evaluations ---
  var charts = kp.el("div", { class: "kp-row" });
  document.getElementById("kp-report").appendChild(charts);
  function evaluationChart(id, title, value, label, pointClass, better) {
    var s = kp.section(id + "-section", title, charts);
    if (!kp.haveD3) { kp.noD3(s); return; }
    var values = evaluated.map(value).filter(function (v) { return v != null; });
    var top = values.length ? d3.max(values) : 1, bottom = values.length ? d3.min(values) : 0;
    var x = { scale: d3.scale.linear().domain([0, Math.max(1, evaluated.length) + 1]), label: "evaluation" };
    var y = { scale: d3.scale.linear().domain([Math.min(0, bottom), top * 1.12]).nice(), label: label };
    var f = kp.frame(s, id, 520, 300, x, y);
    // failed evaluations sit on the axis, as crosses
    var pts = f.g.selectAll("." + pointClass).data(evaluated).enter().append("path")
      .attr("class", function (n) { return pointClass + (value(n) == null ? " kp-failed" : ""); })
      .attr("data-node", function (n) { return n.id; })
      .attr("d", function (n) { return d3.svg.symbol().type(value(n) == null ? "cross" : "circle").size(value(n) == null ? 40 : 60)(); })
      .attr("transform", function (n) { return "translate(" + x.scale(n.evaluation) + "," + (value(n) == null ? f.h : y.scale(value(n))) + ")"; })
      .style("fill", kp.nodeColor).on("click", function (n) { showNode(n.id); });
    pts.append("title").text(function (n) { return "node " + n.id + ": " + (value(n) == null ? n.status : label + " " + value(n).toPrecision(4)); });
    var so_far = null, line = [];
    evaluated.forEach(function (n) {
      var v = value(n);
      if (v != null && (so_far == null || better(v, so_far))) so_far = v;
      if (so_far != null) line.push([n.evaluation, so_far]);
    });
    f.g.append("path").attr("class", "kp-best-line").attr("d", d3.svg.line().interpolate("step-after")
      .x(function (p) { return x.scale(p[0]); }).y(function (p) { return y.scale(p[1]); })(line));
  }
  var ok = function (n) { return n.status === "ok"; };
  evaluationChart("kp-speedup-chart", "Speedup over the start, by evaluation", function (n) { return ok(n) && n.speedup != null ? n.speedup : null; },
    "speedup (x)", "eval-point", function (a, b) { return a > b; });
  if (evaluated.some(function (n) { return n.energy; }))
    evaluationChart("kp-energy-chart", "Energy per call, by evaluation", function (n) { return ok(n) && n.energy ? n.energy.joules_per_call * 1e3 : null; },
      "millijoules per call", "energy-point", function (a, b) { return a < b; });

  // --- roofline: the ceilings, each correct kernel, the task's floor ---
  var rs = kp.section("kp-roofline-section", "Roofline (each correct kernel; the diamond is the task's floor)", charts);
  var roof = data.roofline;
  var placed = evaluated.filter(function (n) { return n.roofline_point; });
  if (!kp.haveD3) kp.noD3(rs);
  else if (!roof || !roof.peak_flops_per_s) rs.appendChild(kp.el("p", { class: "kp-muted", text: "No roofline: this run's evaluations carry no task cost (made before kernelpro recorded it)." }));
  else {
    var taskAi = roof.flops / roof.bytes, ridge = roof.peak_flops_per_s / roof.peak_dram_bytes_per_s;
    var ais = placed.map(function (n) { return n.roofline_point.intensity; }).concat([taskAi, ridge]);
    var perf = placed.map(function (n) { return n.roofline_point.flops_per_s; }).concat([roof.peak_flops_per_s]);
    var x = { scale: d3.scale.log().domain([d3.min(ais) / 8, d3.max(ais) * 8]), label: "arithmetic intensity (FLOP per DRAM byte)", ticks: 6, format: ".1s" };
    var y = { scale: d3.scale.log().domain([d3.min(perf) / 8, roof.peak_flops_per_s * 2]), label: "FLOP/s", ticks: 6, format: ".1s" };
    var f = kp.frame(rs, "kp-roofline", 560, 320, x, y);
    var d0 = x.scale.domain();
    var roofAt = function (ai) { return Math.min(roof.peak_flops_per_s, ai * roof.peak_dram_bytes_per_s); };
    var roofPts = [d0[0], ridge, d0[1]].map(function (ai) { return [ai, roofAt(ai)]; });
    f.g.append("path").attr("class", "kp-roof").attr("d", d3.svg.line().x(function (p) { return x.scale(p[0]); }).y(function (p) { return y.scale(p[1]); })(roofPts));
    f.g.append("text").attr("x", f.w).attr("y", y.scale(roof.peak_flops_per_s) + 14).attr("text-anchor", "end")
      .text(kp.fmt.si(roof.peak_flops_per_s) + "FLOP/s " + (roof.precision || "") + ", " + kp.fmt.si(roof.peak_dram_bytes_per_s) + "B/s (" + (roof.peaks_source || "") + ")");
    f.g.selectAll(".roofline-point").data(placed).enter().append("circle").attr("class", "roofline-point")
      .attr("data-node", function (n) { return n.id; }).attr("r", 5).style("fill", kp.nodeColor)
      .attr("cx", function (n) { return x.scale(n.roofline_point.intensity); }).attr("cy", function (n) { return y.scale(n.roofline_point.flops_per_s); })
      .on("click", function (n) { showNode(n.id); })
      .append("title").text(function (n) { return "node " + n.id + ": " + kp.fmt.si(n.roofline_point.flops_per_s) + "FLOP/s" + (n.roofline_point.measured ? " (measured)" : " (task FLOPs / time)"); });
    f.g.append("path").attr("class", "roofline-floor").attr("d", d3.svg.symbol().type("diamond").size(110)())
      .attr("transform", "translate(" + x.scale(taskAi) + "," + y.scale(roofAt(taskAi)) + ")")
      .append("title").text("task floor: " + kp.fmt.us(roof.floor_seconds));
  }

  // --- findings, ranked per node ---
  var fs = kp.section("kp-findings-section", "Findings per node (ranked by estimated gain)");
  var withFindings = evaluated.filter(function (n) { return (n.findings || []).length; });
  if (!withFindings.length) fs.appendChild(kp.el("p", { class: "kp-muted", text: "No findings: the run was not profiled (optimize --profile)." }));
  withFindings.forEach(function (n) {
    var top = n.findings[0];
    var d = kp.el("details", { class: "kp-node-findings", "data-node": n.id }, [
      kp.el("summary", { text: "node " + n.id + " (" + kp.fmt.x(n.speedup) + "): " + n.findings.length + " finding(s), top: " + top.tool }), findingList(n)]);
    fs.appendChild(d);
  });

  // --- the best kernel against its start ---
  var ds = kp.section("kp-diff-section", best ? "Best kernel (node " + best.id + ", " + kp.fmt.x(best.speedup) + ") against the start" : "Best kernel");
  if (!best) ds.appendChild(kp.el("p", { text: "No correct kernel was found." }));
  else {
    if (!kp.haveHighlight) ds.appendChild(kp.el("p", { class: "kp-muted", text: "No syntax highlighting: highlight.js was not installed when this report was made (Debian libjs-highlight.js)." }));
    var table = kp.el("table", { id: "kp-diff", class: "kp-diff" });
    data.best.diff.forEach(function (l) {
      var cls = { "+": "diff-add", "-": "diff-del", " ": "diff-ctx", "~": "diff-skip" }[l.kind];
      var code = kp.el("td", { class: "kp-code" });
      if (l.kind === "~") code.textContent = "… " + l.text + " unchanged lines …";
      else {
        var html = kp.highlightLine(l.text);
        if (html != null) { code.innerHTML = html; code.classList.add("hljs"); } else code.textContent = l.text;
      }
      table.appendChild(kp.el("tr", { class: cls }, [kp.el("td", { class: "kp-ln", text: l.old || "" }), kp.el("td", { class: "kp-ln", text: l.new || "" }),
        kp.el("td", { class: "kp-ln", text: l.kind === "~" ? "" : l.kind }), code]));
    });
    ds.appendChild(kp.el("div", { class: "kp-scroll" }, [table]));
  }

  // --- LLM exchanges, collapsed ---
  function exchangeBlock(x) {
    var calls = Array.isArray(x.tool_calls) ? x.tool_calls : [];
    var toolParts = calls.length ? [kp.el("div", { class: "kp-muted", text: "tool calls (" + calls.length + ")" })].concat(
      calls.map(function (c) {
        return kp.el("pre", { class: "kp-text", text: c.name + " " + JSON.stringify(c.arguments) + (c.ran === false ? " (not run)" : "") +
          "\n" + (c.result || "") });
      })) : [];
    return kp.el("details", { class: "kp-exchange" }, [
      kp.el("summary", { text: (x.node != null ? "node " + x.node + " · " : "") + x.agent + " · " + (x.model || "?") + " · " +
        kp.fmt.int(x.tokens_in) + " in / " + kp.fmt.int(x.tokens_out) + " out · " + kp.fmt.usd(x.cost_usd) + " · " + x.latency_s.toFixed(1) + " s" }),
      kp.el("div", { class: "kp-muted", text: "prompt" }), kp.el("pre", { class: "kp-text", text: x.prompt }),
      kp.el("div", { class: "kp-muted", text: "reply" }), kp.el("pre", { class: "kp-text", text: x.reply })].concat(toolParts));
  }
  var ls = kp.section("kp-llm-section", "LLM exchanges (" + data.llm.length + ")");
  if (!data.llm.length) ls.appendChild(kp.el("p", { class: "kp-muted", text: "None: the run used the tuner only." }));
  data.llm.forEach(function (x) { ls.appendChild(exchangeBlock(x)); });

  if (best && kp.haveD3) showNode(best.id);
})();
