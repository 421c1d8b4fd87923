// The bench view: a `kernelpro bench` results folder (schema in docs/report.md): per-problem
// table, the distribution of speedups, and fast_p (correct and faster than p times the baseline)
// against eager PyTorch and torch.compile.
"use strict";
(function () {
  var data = kp.data;
  if (data.kind !== "bench") return;
  var problems = data.problems;
  document.getElementById("kp-title").textContent = "kernelpro bench report: " + (data.suite || "benchmark");
  document.getElementById("kp-subtitle").textContent = problems.length + " problems" + (data.device ? " · " + data.device : "") +
    (data.created_at ? " · " + data.created_at : "") + " · " + data.source;
  var correct = problems.filter(function (p) { return p.correct; });
  var fastP = function (key, p) { return problems.length ? correct.filter(function (q) { return q[key] != null && q[key] > p; }).length / problems.length : 0; };
  var geo = function (key) {
    var v = correct.map(function (p) { return p[key]; }).filter(function (s) { return s > 0; });
    return v.length ? Math.exp(d3.mean(v.map(Math.log))) : null;
  };
  var summary = kp.section("kp-summary", "Summary");
  kp.stats(summary, [["problems", String(problems.length)], ["correct", String(correct.length)],
    ["fast_1 vs eager", kp.fmt.pct(fastP("speedup_vs_eager", 1))], ["fast_1 vs compile", kp.fmt.pct(fastP("speedup_vs_compile", 1))],
    ["geomean speedup vs eager (correct)", kp.haveD3 ? kp.fmt.x(geo("speedup_vs_eager")) : "-"],
    ["LLM cost", kp.fmt.usd(problems.reduce(function (a, p) { return a + (p.cost_usd || 0); }, 0))]]);

  var charts = kp.el("div", { class: "kp-row" });
  document.getElementById("kp-report").appendChild(charts);
  var hs = kp.section("kp-distribution-section", "Speedup over eager, correct problems", charts);
  var cs = kp.section("kp-fastp-section", "fast_p: share of problems correct and more than p times faster", charts);
  if (!kp.haveD3) { kp.noD3(hs); kp.noD3(cs); }
  else {
    var speeds = correct.map(function (p) { return p.speedup_vs_eager; }).filter(function (s) { return s > 0; });
    var logs = speeds.map(Math.log2);
    var lo = Math.floor(d3.min(logs.concat([-1]))), hi = Math.ceil(d3.max(logs.concat([1])));
    var bins = d3.layout.histogram().bins(d3.range(lo, hi + 0.25, 0.25))(logs);
    var x = { scale: d3.scale.linear().domain([lo, hi]), label: "log2 speedup over eager (0 = as fast)" };
    var y = { scale: d3.scale.linear().domain([0, Math.max(1, d3.max(bins, function (b) { return b.y; }))]).nice(), label: "problems", format: "d" };
    var f = kp.frame(hs, "kp-distribution", 520, 280, x, y);
    f.g.selectAll(".kp-bar").data(bins).enter().append("rect").attr("class", "kp-bar")
      .attr("x", function (b) { return x.scale(b.x) + 1; }).attr("width", function (b) { return Math.max(0, x.scale(b.x + b.dx) - x.scale(b.x) - 2); })
      .attr("y", function (b) { return y.scale(b.y); }).attr("height", function (b) { return f.h - y.scale(b.y); }).style("fill", "#4c6ef5");
    var maxP = Math.max(2, d3.max(correct, function (p) { return Math.max(p.speedup_vs_eager || 0, p.speedup_vs_compile || 0); }) || 2);
    var ps = d3.range(0, maxP * 1.05, maxP / 200);
    var x2 = { scale: d3.scale.linear().domain([0, maxP * 1.05]), label: "p (speedup threshold)" };
    var y2 = { scale: d3.scale.linear().domain([0, 1]), label: "fast_p", format: "%" };
    var f2 = kp.frame(cs, "kp-fastp", 520, 280, x2, y2);
    [["speedup_vs_eager", "#2f9e44", "vs eager"], ["speedup_vs_compile", "#e8590c", "vs torch.compile"]].forEach(function (c, i) {
      f2.g.append("path").attr("class", "kp-fastp-line").attr("data-baseline", c[0]).style("fill", "none").style("stroke", c[1]).style("stroke-width", "2px")
        .attr("d", d3.svg.line().interpolate("step-after").x(function (p) { return x2.scale(p); }).y(function (p) { return y2.scale(fastP(c[0], p)); })(ps));
      f2.g.append("text").attr("x", f2.w - 110).attr("y", 14 + 16 * i).style("fill", c[1]).text(c[2]);
    });
  }
  var ts = kp.section("kp-problems-section", "Problems");
  var rows = problems.map(function (p) {
    return [p.name, p.level == null ? "-" : p.level, p.status || (p.correct ? "ok" : "failed"), kp.fmt.us(p.eager_seconds), kp.fmt.us(p.compile_seconds),
      kp.fmt.us(p.kernel_seconds), kp.fmt.x(p.speedup_vs_eager), kp.fmt.x(p.speedup_vs_compile), p.evaluations == null ? "-" : p.evaluations,
      kp.fmt.usd(p.cost_usd)];
  });
  var table = kp.table(ts, ["problem", "level", "status", "eager", "compile", "kernel", "vs eager", "vs compile", "evaluations", "LLM cost"], rows,
    [false, true, false, true, true, true, true, true, true, true]);
  table.id = "kp-problems";
})();
