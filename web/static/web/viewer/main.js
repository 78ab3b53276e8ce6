// The town viewer: the map and its residents, live (following the event log: live.js)
// and in replay (the replay endpoint, a chunk of steps per request).
// Reads only the public REST API, so it is also an example of integrating with it.

import { getJSON, postJSON } from "./api.js";
import { EMOJI_FONT, TownView, residentColour } from "./town.js";
import { ResidentPanel, TownPanel } from "./panels.js";
import { Bubbles } from "./bubbles.js";
import { stateAt } from "./frames.js";
import { POLL_RUNNING_MS, following } from "./live.js";
import { FactColours } from "./facts.js";
import { HeatMap } from "./heat.js";
import { Minimap } from "./minimap.js";
import { readSpend, showEstimate } from "./spend.js";
import { Evaluations, wireFork } from "./work.js";
import { listResidents, wireKeys } from "./keys.js";
import { Play } from "./play.js";

const root = document.getElementById("viewer");
const SIM = Number(root.dataset.simulation);
const TOWN = Number(root.dataset.town);
const CHUNK = Number(root.dataset.replayChunk);
// The owner runs, forks, evaluates and reads the spend; a guest (shared with) watches and
// plays (play.js).
const OWNER = root.dataset.role === "owner";
const API = `/api/simulations/${SIM}`;
const POLL_MS = 1000;
const ZOOM = 1.25;
const SPEND_MS = 5000; // the spend panel, read again this often while the run goes

const $ = (id) => document.getElementById(id);

// Whether a resident is in the town at a step: from its arrival until the step it left.
function presentAt(resident, step) {
  const left = resident.left_step;
  return resident.arrived_step <= step && (left === null || left === undefined || step < left);
}

class Viewer {
  constructor() {
    this.api = API;
    this.chunks = new Map(); // first step -> replay body
    this.following = true;
    this.lastStep = 0;
    this.shownStep = 0;
    this.lastSeq = null;
    this.readStep = 0; // the last step the log read so far has closed
    this.frames = []; // live frames not yet shown
    this.frame = { moved: [], acted: [], talks: [] };
  }

  async start() {
    const [simulation, map] = await Promise.all([
      getJSON(`${API}/`),
      getJSON(`/api/towns/${TOWN}/map/`),
    ]);
    this.simulation = simulation;
    this.town = new TownView($("map"), map);
    const wrap = $("map-wrap");
    this.town.fit(wrap.clientWidth);
    // The map fills its container's width, again when the window changes (the container's
    // parent: a scrollbar appearing inside the container does not refit it).
    let width = wrap.parentElement.clientWidth;
    new ResizeObserver(() => {
      const now = wrap.parentElement.clientWidth;
      if (now === width) return;
      width = now;
      const fitted = this.town.fitted;
      const tile = this.town.tile;
      this.town.fitTile = Math.max(1, wrap.clientWidth / map.width);
      this.town.setScale(fitted ? this.town.fitTile : tile);
    }).observe(wrap.parentElement);
    this.minimap = new Minimap($("minimap"), this.town, wrap);
    this.town.onFrame = () => this.minimap.draw();
    this.emojiFont = this.loadEmojiFont();
    const first = await this.chunk(simulation.step);
    this.lastStep = simulation.step;
    this.townPanel = new TownPanel(API, first.residents, (step) => this.scrub(step));
    this.meet(first);
    this.residentPanel = new ResidentPanel(API, (i) => this.select(i), (x, y) => this.town.placeAt(x, y));
    this.show(this.live, simulation.step, false);
    this.wire();
    this.showSimulation(simulation);
    this.person = new Play(this, API, map);
    this.person.listResidents(this.residents, this.lastStep);
    // A guest reads no spend: the offline note then says what the server runs on.
    $("offline-note").hidden = OWNER || root.dataset.serverBackend !== "offline";
    if (OWNER) {
      this.spend();
      this.estimate();
      wireFork(API, () => this.shownStep);
      this.evaluations = new Evaluations(API, () => this.shownStep);
      this.facts = new FactColours(API, this);
      await this.facts.load();
    }
    await this.person.start();
    await this.emojiFont;
    root.dataset.ready = "true";
    this.poll();
  }

  // The page's emoji font, loaded before the residents' emoji are drawn (a canvas does not
  // ask for a font itself), then the frame drawn again with it.
  async loadEmojiFont() {
    try {
      await document.fonts.load(`16px ${EMOJI_FONT}`, "💬");
    } catch (error) {
      /* the system's emoji font then, if any */
    }
    this.town.request();
  }

  // The residents and the live state as the replay gives them at the last step.
  meet(chunk) {
    this.residents = chunk.residents;
    this.townPanel.residents = chunk.residents;
    this.index = new Map(this.residents.map((r, i) => [r.name, i]));
    listResidents(this.residents);
    this.person?.listResidents(this.residents, this.lastStep);
    this.live = stateAt(chunk, this.lastStep);
  }

  // A newcomer joined: read the residents again once the frames read are shown.
  async rejoin() {
    const selected = this.selected >= 0 ? this.residents[this.selected].name : null;
    this.chunks.clear();
    this.meet(await this.chunk(this.lastStep));
    this.selected = this.town.selected = selected ? this.index.get(selected) : -1;
    this.newcomer = false;
    if (this.following) this.show(this.live, this.lastStep, false);
  }

  // The replay chunk holding `step` (cached; refetched while the run adds steps to it).
  async chunk(step) {
    const first = Math.floor(step / CHUNK) * CHUNK;
    let body = this.chunks.get(first);
    if (!body || body.to_step < step) {
      body = await getJSON(`${API}/replay/`, { from_step: first, to_step: Math.min(first + CHUNK, Math.max(step, this.lastStep)) });
      this.chunks.set(first, body);
    }
    return body;
  }

  show(state, step, animate = true) {
    const names = this.residents.map((r) => r.name);
    const colours = this.residents.map((r) => residentColour(r.name));
    const present = this.residents.map((r) => presentAt(r, step));
    this.town.update({ ...state, names, colours, present }, { animate });
    this.shownStep = step;
    this.state = state;
    $("slider").max = String(this.lastStep);
    $("slider").value = String(step);
    $("slider-label").textContent = `step ${step}${this.following ? " · live" : " · replay"}`;
    $("map").dataset.step = String(step);
    root.dataset.mode = this.following ? "live" : "replay";
    this.showClock(step);
    this.townPanel.showConversations(state);
    this.townPanel.showStep(step, this.following);
    this.speak(state, step);
    this.heat?.show(step, this.following);
    this.facts?.show(step, this.following);
    // Conversations earlier: read for a replayed step, and once on (re)turning live; then
    // the live stream's are added as their steps are shown (live.js).
    if (!this.following || !this.talksLive) this.townPanel.showTalks(step, this.following);
    else this.townPanel.keepTalks(step);
    this.talksLive = this.following;
    if (this.selected >= 0) this.residentPanel.showState(state, this.selected, step, this.following);
    this.follow();
  }

  // The lines said at the step shown, as bubbles over the speakers.
  async speak(state, step) {
    this.bubbles ??= new Bubbles(API);
    const bubbles = await this.bubbles.at(state, step, this.index).catch(() => []);
    if (bubbles === null) return; // another step is being shown
    this.town.bubbles = bubbles;
    this.town.request();
  }

  // The followed resident (Follow in its panel) kept in view, live and in replay.
  follow() {
    const i = this.followed ? (this.index.get(this.followed) ?? -1) : -1;
    if (i >= 0 && this.state) {
      this.town.keepInView($("map-wrap"), this.state.tiles[2 * i], this.state.tiles[2 * i + 1]);
    }
  }

  showClock(step) {
    const s = this.simulation;
    const time = new Date(Date.parse(s.start_time) + step * s.sec_per_step * 1000);
    const text = time.toLocaleString("en-GB", {
      timeZone: "UTC", weekday: "short", day: "numeric", month: "short", year: "numeric",
      hour: "2-digit", minute: "2-digit", second: "2-digit",
    });
    $("clock").textContent = text;
  }

  showSimulation(simulation) {
    this.simulation = simulation;
    const status = simulation.status_reason ? `${simulation.status}: ${simulation.status_reason}` : simulation.status;
    $("status").textContent = status;
    $("pace").textContent = simulation.pace ? `at ${simulation.pace}× real time` : "";
    if (simulation.pace !== this.paceShown) this.showPace(simulation);
    root.dataset.status = simulation.status;
    $("run").disabled = simulation.status === "running";
    $("pause").disabled = simulation.status !== "running";
    $("resume").disabled = !["paused", "failed", "budget_exhausted"].includes(simulation.status);
  }

  // The pace select shows the simulation's pace when one of its choices is it (once per
  // change of the pace, so a choice being made is not undone by the next poll).
  showPace(simulation) {
    this.paceShown = simulation.pace;
    const pace = simulation.pace;
    const option = [...$("run-pace").options].find((o) => {
      if (o.value === "") return pace === null;
      if (o.value === "real") return pace === 1;
      return pace !== null && Math.abs(Number(o.value) * simulation.sec_per_step - pace) < 1e-9;
    });
    if (option) $("run-pace").value = option.value;
  }

  // The ledger's summary: the spend panel and the offline note (spend.js).
  async spend() {
    this.spentAt = Date.now();
    await readSpend(API, root.dataset.serverBackend === "offline");
  }

  async estimate() {
    await showEstimate(API, this.simulation, Number($("run-steps").value));
  }

  wire() {
    const slider = $("slider");
    slider.addEventListener("input", () => this.scrub(Number(slider.value)));
    $("live").addEventListener("click", () => {
      this.following = true;
      this.frames = [];
      this.show(this.live, this.lastStep);
    });
    $("map").addEventListener("click", (event) => {
      const box = event.target.getBoundingClientRect();
      const [x, y] = [event.clientX - box.left, event.clientY - box.top];
      const i = this.town.residentAt(x, y);
      const played = this.person.clicked(i, x, y);
      if (i >= 0 && (OWNER || !played)) this.select(i);
    });
    $("zoom-in").addEventListener("click", () => this.zoom(ZOOM));
    $("zoom-out").addEventListener("click", () => this.zoom(1 / ZOOM));
    wireKeys(this, (sign) => this.zoom(sign > 0 ? ZOOM : 1 / ZOOM));
    this.heat = new HeatMap(
      this.town,
      (step) => this.chunk(step),
      (i, step) => presentAt(this.residents[i], step),
      Math.round(3600 / this.simulation.sec_per_step),
    );
    $("heat").addEventListener("click", () => {
      const on = this.heat.toggle(this.shownStep, this.following);
      $("heat").setAttribute("aria-pressed", String(on));
    });
    $("follow").addEventListener("click", () => {
      const name = this.residents[this.selected].name;
      this.followed = this.followed === name ? null : name;
      $("follow").setAttribute("aria-pressed", String(this.followed === name));
      this.follow();
    });
    $("run").addEventListener("click", () => this.control("run", this.runBody()));
    $("run-steps").addEventListener("change", () => this.estimate());
    $("pause").addEventListener("click", () => this.control("pause"));
    $("resume").addEventListener("click", () => this.control("resume"));
  }

  // The run's body: its steps and its pace (sim seconds a wall second; null: as fast as
  // it can), the pace chosen as steps a wall second or real time.
  runBody() {
    const steps = Number($("run-steps").value);
    const choice = $("run-pace").value;
    if (choice === "") return { steps, pace: null };
    const pace = choice === "real" ? 1 : Number(choice) * this.simulation.sec_per_step;
    return { steps, pace };
  }

  zoom(factor) {
    this.town.setScale(this.town.tile * factor);
    this.follow();
  }

  select(i) {
    this.selected = i;
    this.town.selected = i;
    this.town.request();
    if (i < 0) return;
    $("follow").setAttribute("aria-pressed", String(this.followed === this.residents[i].name));
    if (!OWNER) return; // a guest reads no memories: the panel is the owner's
    this.residentPanel.open(this.residents[i], this.state, i, this.shownStep, this.following);
    this.facts.describe();
  }

  async scrub(step) {
    this.following = step >= this.lastStep;
    if (this.following) {
      this.show(this.live, this.lastStep);
      return;
    }
    this.wanted = step;
    const chunk = await this.chunk(step);
    if (this.wanted !== step) return; // the slider moved on meanwhile
    this.show(stateAt(chunk, step), step);
  }

  async control(action, body = {}) {
    $("control-error").textContent = "";
    try {
      await postJSON(`${API}/${action}/`, body);
      this.showSimulation(await getJSON(`${API}/`));
    } catch (error) {
      $("control-error").textContent = error.message;
    }
  }

  // Follow the run: the simulation's status, then the log's new events (from the stream
  // once the first read has set where it starts).
  async poll() {
    try {
      const was = this.simulation.status;
      this.showSimulation(await getJSON(`${API}/`));
      const running = this.simulation.status === "running";
      const spent = running && Date.now() - this.spentAt > SPEND_MS;
      if (OWNER && (spent || (was === "running" && !running))) {
        this.spend();
      }
      if (this.newcomer && !this.playing) await this.rejoin();
      if (!this.streaming()) await this.readEvents();
    } catch (error) {
      $("control-error").textContent = `lost the server: ${error.message}`;
    }
    // While the live stream brings the steps, the status is only read for what it says
    // (running, paused, the pace): once a second is enough.
    const running = this.simulation.status === "running" && !this.streaming();
    setTimeout(() => this.poll(), running ? POLL_RUNNING_MS : POLL_MS);
  }
}

Object.assign(Viewer.prototype, following);

// For scripts and tests driving the page: the residents, their drawn state and the step.
const viewer = new Viewer();
window.smallvilleViewer = viewer;
window.__viewer = viewer; // the debug name: town.labels are the names' laid-out boxes
viewer.start().catch((error) => {
  $("control-error").textContent = `could not load the viewer: ${error.message}`;
  root.dataset.ready = "error";
});
