// What a run costs: the spend panel (its model calls so far, in total, per task and per
// resident, from GET model-calls/summary/: tokens at the profiles' prices; the offline
// stand-in and the local model cost nothing, so there the calls and tokens are the spend),
// the offline note, and the estimate beside Run (GET estimate/).

import { el, getJSON } from "./api.js";

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

// The summary read again: the panel, and the offline note (the calls made say which
// backend answered where there are any, else `serverOffline`, the server's backend).
export async function readSpend(api, serverOffline) {
  let offline = serverOffline;
  try {
    const summary = await getJSON(`${api}/model-calls/summary/`);
    if (summary.by_model && summary.by_model.length) {
      offline = summary.by_model.some((m) => m.backend === "offline");
    }
    showSpend(summary);
  } catch (error) {
    /* the panel keeps its last reading */
  }
  document.getElementById("offline-note").hidden = !offline;
}

// What `steps` more steps of `simulation` will cost, beside Run (kept to one line).
export async function showEstimate(api, simulation, steps) {
  const box = document.getElementById("estimate");
  if (!simulation || !(steps > 0)) return;
  const hours = (steps * simulation.sec_per_step) / 3600;
  try {
    const e = await getJSON(`${api}/estimate/?hours=${hours}`);
    const range = (r) => `${Math.round(r.expected)} (${Math.round(r.low)}-${Math.round(r.high)})`;
    const money = Number(e.cost.expected) > 0 ? `, ${e.cost.expected}` : "";
    const basis = e.basis === "ledger" ? `${e.runs.length} earlier run(s)` : "the default table";
    box.textContent = `≈ ${range(e.calls)} calls, ${range(e.tokens)} tokens${money}`;
    box.title = `estimate from ${basis}; range over them`;
  } catch (error) {
    box.textContent = "";
  }
}

function showSpend(summary) {
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
