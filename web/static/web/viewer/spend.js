// The spend panel: what the run's model calls cost so far, in total, per task and per
// resident, from GET model-calls/summary/ (tokens at the profiles' prices; the offline
// stand-in and the local model cost nothing, so there the calls and tokens are the spend).

import { el } from "./api.js";

const ROWS = 8; // the costliest tasks and residents; the rest summed in one row

function money(value) {
  const n = Number(value);
  if (!(n > 0)) return "0";
  return n >= 1 ? n.toFixed(2) : n.toPrecision(2);
}

function count(n) {
  return Number(n).toLocaleString("en-US");
}

// Costliest first, then most tokens, then most calls: free backends still rank.
function costliest(rows) {
  return rows
    .slice()
    .sort((a, b) => Number(b.cost) - Number(a.cost) || b.tokens - a.tokens || b.calls - a.calls);
}

function table(caption, rows, name) {
  const sorted = costliest(rows);
  const shown = sorted.slice(0, ROWS);
  const rest = sorted.slice(ROWS);
  if (rest.length) {
    shown.push({
      [name]: `${rest.length} more`,
      calls: rest.reduce((s, r) => s + r.calls, 0),
      tokens: rest.reduce((s, r) => s + r.tokens, 0),
      cost: rest.reduce((s, r) => s + Number(r.cost), 0),
      fallbacks: rest.reduce((s, r) => s + r.fallbacks, 0),
    });
  }
  return el(
    "table",
    { class: "spend-table", "data-by": name },
    el("caption", {}, caption),
    el(
      "thead",
      {},
      el("tr", {}, el("th", {}, name === "task" ? "task" : "resident"), el("th", {}, "calls"),
        el("th", {}, "tokens"), el("th", {}, "spend")),
    ),
    el(
      "tbody",
      {},
      shown.map((r) =>
        el(
          "tr",
          { "data-name": r[name] || "" },
          el("td", {}, r[name] || "(no resident)"),
          el("td", { class: "num" }, count(r.calls)),
          el("td", { class: "num" }, count(r.tokens)),
          el("td", { class: "num" }, money(r.cost)),
        ),
      ),
    ),
  );
}

export function showSpend(summary) {
  const t = summary.totals;
  const b = summary.budget;
  const limits = [];
  if (b.calls !== null) limits.push(`${count(b.calls_used)} of ${count(b.calls)} calls`);
  if (b.tokens !== null) limits.push(`${count(b.tokens_used)} of ${count(b.tokens)} tokens`);
  if (b.money !== null) limits.push(`${money(b.money_used)} of ${money(b.money)}`);
  const total = document.getElementById("spend-total");
  total.textContent =
    `${count(t.calls)} calls, ${count(t.tokens)} tokens, spend ${money(t.cost)}` +
    (t.fallbacks ? ` · ${count(t.fallbacks)} fail-safe answers` : "") +
    (limits.length ? ` · budget: ${limits.join(", ")}` : "");
  document
    .getElementById("spend-tables")
    .replaceChildren(table("per task", summary.by_task, "task"),
      table("per resident", summary.by_agent, "agent_name"));
}
