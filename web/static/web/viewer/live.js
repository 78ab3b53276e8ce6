// Following the run: the live log read (its first page with `step_min`, then the live
// stream, `/stream/` as Server-Sent Events, or pages of `seq_after` where the stream cannot
// be had) and its steps walked on the map. Methods of the viewer (main.js).

import { getJSON, itemsOf } from "./api.js";
import { applyFrame } from "./frames.js";

export const POLL_RUNNING_MS = 500; // the poll while the run goes, so the page trails it by little
const CATCH_UP = 3; // frames read beyond these are applied at once, not walked

const $ = (id) => document.getElementById(id);

export const following = {
  async readEvents() {
    // The first read starts at the step shown (its events change nothing drawn, as they
    // are in the replay already): a newcomer may join at it, with no step after it.
    let params = this.lastSeq === null
      ? { step_min: this.lastStep, page_size: 1000 }
      : { seq_after: this.lastSeq, page_size: 1000 };
    let url = `${this.api}/events/`;
    for (;;) {
      const page = await getJSON(url, params);
      for (const event of itemsOf(page)) this.take(event);
      if (!page.next) break;
      url = page.next;
      params = {};
    }
    if (this.frames.length) this.play();
    this.listen();
  },

  // The live stream after the last seq read; EventSource resumes it by itself with
  // Last-Event-ID. Refused (it closes for good), the pages of `seq_after` are read instead.
  listen() {
    if (this.stream || this.lastSeq === null || typeof EventSource === "undefined") return;
    this.stream = new EventSource(`${this.api}/stream/?after=${this.lastSeq}`);
    this.stream.onmessage = (message) => {
      const event = JSON.parse(message.data);
      if (event.seq <= this.lastSeq) return;
      this.take(event);
      if (event.kind === "simulation.stepped") this.play();
    };
  },

  streaming() {
    return Boolean(this.stream) && this.stream.readyState !== EventSource.CLOSED;
  },

  // One event of the live log: positions and actions into the frame being built, the
  // rest into the town's feed; `simulation.stepped` closes the frame.
  take(event) {
    this.lastSeq = event.seq;
    const i = this.index.get(event.agent);
    const p = event.payload;
    switch (event.kind) {
      case "agent.moved":
        if (i !== undefined) this.frame.moved.push(i, p.tile[0], p.tile[1]);
        return;
      case "agent.acting": {
        const partner = this.index.get(p.chatting_with || "");
        if (i !== undefined) this.frame.acted.push([i, p.action, p.emoji || "", partner ?? -1]);
        break;
      }
      case "agent.headed":
      case "agent.arrived":
        // The action only: emoji and partner stay the last acting's (null: keep).
        if (i !== undefined) this.frame.acted.push([i, p.action, null, null]);
        break;
      case "conversation.held":
        this.person?.take(event);
        this.frame.talks.push({ step: event.step, started: event.sim_time, participants: p.participants, summary: p.summary || "" });
        break;
      case "agent.created":
        if (i === undefined) this.newcomer = true;
        break;
      case "agent.left":
        // Gone from the map from this step on (replays of earlier steps still show it),
        // at once: a leave may come between steps.
        if (i !== undefined) this.residents[i].left_step = event.step;
        if (!this.playing) this.redrawLive();
        else this.departed = true; // redrawn once the frames read are shown
        break;
      case "simulation.stepped":
        this.readStep = p.step;
        this.frames.push({ step: p.step, ...this.frame });
        this.frame = { moved: [], acted: [], talks: [] };
        return;
    }
    this.townPanel.feed(event);
  },

  // Show the frames read, one after the other within the poll interval. Behind the run
  // (more than CATCH_UP frames waiting: a run faster than the page walks, or steps
  // committed in a batch), the older frames are applied at once and only the last few
  // walked, so the clock stays within a few steps of the log read, as the event list does.
  play() {
    this.catchUp();
    if (this.playing) return;
    this.playing = true;
    const next = () => {
      const frame = this.frames.shift();
      if (!frame) {
        this.playing = false;
        if (this.departed) this.redrawLive();
        return;
      }
      this.showFrame(frame, frame.step % 6 === 0 || !this.frames.length);
      setTimeout(next, Math.max(40, POLL_RUNNING_MS / (this.frames.length + 1)));
    };
    next();
  },

  catchUp() {
    if (this.frames.length <= CATCH_UP) return;
    let objects = false;
    while (this.frames.length > CATCH_UP + 1) {
      const skipped = this.frames.shift();
      applyFrame(this.live, skipped);
      this.listTalks(skipped);
      objects ||= skipped.step % 6 === 0;
    }
    this.showFrame(this.frames.shift(), objects);
  },

  // The live state drawn again as it is (a resident left between steps).
  redrawLive() {
    this.departed = false;
    if (this.following) this.show(this.live, this.lastStep, false);
  },

  // The conversations a live frame brought, into the list (followed live only: a replay's
  // list is read again on the way back to live).
  listTalks(frame) {
    if (!this.following) return;
    for (const talk of frame.talks) this.townPanel.addTalk(talk, frame.step);
  },

  showFrame(frame, objects) {
    applyFrame(this.live, frame);
    this.listTalks(frame);
    this.lastStep = frame.step;
    if (this.following) this.show(this.live, frame.step);
    else $("slider").max = String(this.lastStep);
    if (objects) this.townPanel.refreshObjects();
  },
};
