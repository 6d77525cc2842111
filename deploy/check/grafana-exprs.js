#!/usr/bin/env node
// Prints every PromQL expression ("expr") of a Grafana dashboard, one JSON
// string per line, with Grafana's template variable $job filled in as
// ".*": scripts/check-deploy hands them to promtool as recording rules
// (their syntax), and the dashboard test queries a live Prometheus with
// them (their metrics and labels).
// Usage: node grafana-exprs.js deploy/grafana/mmapzero.json [--rules]
//   --rules: a Prometheus rules file instead, one recording rule per expr.
"use strict";
const fs = require("fs");

const [file, mode] = process.argv.slice(2);
const exprs = [];
(function walk(node) {
  if (Array.isArray(node)) {
    node.forEach(walk);
  } else if (node && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      if (key === "expr" && typeof value === "string") exprs.push(value);
      else walk(value);
    }
  }
})(JSON.parse(fs.readFileSync(file, "utf8")));
const filled = exprs.map((e) => e.split("$job").join(".*"));
if (mode === "--rules") {
  console.log("groups:\n  - name: grafana_panels\n    rules:");
  filled.forEach((e, i) => {
    console.log(`      - record: grafana_panel_${i}\n        expr: ${JSON.stringify(e)}`);
  });
} else {
  filled.forEach((e) => console.log(JSON.stringify(e)));
}
