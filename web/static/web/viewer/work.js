// The viewer as a place to work: fork the simulation at the step shown, and evaluate it
// (start an evaluation, follow it, open its report), through the same REST calls a
// client would make.

import { el, getJSON, postJSON } from "./api.js";

const EVALUATIONS_MS = 3000; // read again this often while one is under way

const $ = (id) => document.getElementById(id);

// Fork at `step()` and open the fork's viewer.
export function wireFork(api, step) {
  $("fork").addEventListener("click", async () => {
    $("control-error").textContent = "";
    try {
      const fork = await postJSON(`${api}/fork/`, { step: step() });
      window.location.assign(`/simulations/${fork.id}/`);
    } catch (error) {
      $("control-error").textContent = `fork: ${error.message}`;
    }
  });
}

export class Evaluations {
  constructor(api, step) {
    this.api = api;
    this.step = step;
    $("evaluate").addEventListener("submit", (event) => {
      event.preventDefault();
      this.start();
    });
    this.refresh();
  }

  async start() {
    const kinds = [...document.querySelectorAll("#evaluate input[name=kind]:checked")].map(
      (box) => box.value,
    );
    $("evaluate-error").textContent = "";
    try {
      await postJSON(`${this.api}/evaluations/`, { kinds, step: this.step() });
    } catch (error) {
      $("evaluate-error").textContent = error.message;
    }
    this.refresh();
  }

  async refresh() {
    clearTimeout(this.timer);
    let evaluations = [];
    try {
      evaluations = await getJSON(`${this.api}/evaluations/`);
    } catch (error) {
      return;
    }
    $("evaluations").replaceChildren(
      ...evaluations.map((e) =>
        el(
          "li",
          { "data-number": String(e.number), "data-status": e.status },
          `#${e.number} at step ${e.step}: ${e.kinds.join(", ")} · `,
          e.status === "done"
            ? el("a", { href: `${this.api}/evaluations/${e.number}/report/`, target: "_blank" }, "report")
            : `${e.status} ${e.done}/${e.total}`,
        ),
      ),
    );
    if (evaluations.some((e) => e.status === "pending" || e.status === "running")) {
      this.timer = setTimeout(() => this.refresh(), EVALUATIONS_MS);
    }
  }
}
