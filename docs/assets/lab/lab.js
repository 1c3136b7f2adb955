// The two-moons lab: Train, Pause, Step and Reset under the chapter's training fence.
//
// The lab's markup is written while the site is built (tools/site/lab.py); what it shows is
// decided in the page's Python (tools/page/lab.py, in the worker of the Run buttons,
// docs/assets/notebook/worker.js: window.bookPython, the same Python, not a second one).
// This script only sends what the reader did, with the settings as typed and the chapter's
// fences as edited, and puts each answer in the page: a frame (status, the chart with a
// sentence per step, the plane, each hidden unit's map as levels to paint, the network,
// the page's address, a problem or a note to show) or a refusal (a message; the lab keeps
// what it had). Training goes a slice at a time (about 0.12 s of Python each): Pause takes
// effect when the slice in progress ends, and a changed field at the next slice (or at
// once, when the lab stands still). The page's address gives the fields their first values
// and carries the added points. Opened from disk, it runs as served (notebook.js starts
// the same Python from the book's folder). The last frame is window.bookLab.frame (the tests read its losses).

(function () {
  "use strict";

  if (window.bookLab) return; // Material runs this script again on each visit of the page
  window.bookLab = { frame: null };

  class Lab {
    constructor(root) {
      this.root = root;
      this.data = bookPage.data(root.querySelector(".lab-data"));
      this.leaving = new AbortController();
      this.pending = null; // {resolve, reject} of the request in progress
      this.worker = null; // the worker whose Python holds this lab
      this.training = false;
      this.chain = Promise.resolve(); // the requests, one after another
      this.quiet = false; // the request in progress only redraws: the buttons stay usable
      this.queued = 0; // requests asked for and not yet answered
      this.find();
      this.fromAddress();
      root.dataset.state = "idle";
      const q = (selector) => root.querySelector(selector);
      const on = (node, event, handler) => node.addEventListener(event, handler, { signal: this.leaving.signal });
      on(this.trainButton, "click", () => this.train());
      on(this.pauseButton, "click", () => this.pause());
      on(this.stepButton, "click", () => this.act("step"));
      on(this.resetButton, "click", () => this.act("open"));
      on(this.gradients, "change", () => this.worker && !this.training && this.act("draw"));
      on(this.clearButton, "click", () => this.act("clear"));
      // The network's and the data's fields change the picture: taken at once when the lab
      // stands still. The rate, steps and decay wait for the next step; the seed for Reset.
      for (const name of this.data.redraw) {
        on(q(`.lab-${name}`), "change", () => this.worker && !this.training && this.act("draw"));
      }
      this.chart = new Chart(this, q(".lab-curves-here"), q(".lab-readout"), on);
      this.plane = new Plane(this, q(".lab-boundary-here"), on);
      on(root, "pointerenter", () => window.bookPython?.warm());
      on(root, "focusin", () => window.bookPython?.warm());
      const which = q(".lab-which");
      const value = q(".lab-value");
      const read = () => this.act("weight", { which: which.value });
      const set = () => this.act("set", { which: which.value, value: value.value });
      on(which, "change", () => !this.training && read());
      on(which, "keydown", (event) => event.key === "Enter" && read());
      on(value, "keydown", (event) => event.key === "Enter" && set());
      on(q(".lab-set"), "click", set);
      on(q(".lab-network-here"), "click", (event) => {
        const line = event.target.closest("[data-weight]");
        if (!line || this.training) return;
        which.value = line.dataset.weight;
        read();
      });
      this.apart = null; // the part of the step taken apart shown: {index, count, ...}
      const to = (index) => this.apart && this.act("apart-stage", { stage: index });
      on(q(".lab-take-apart"), "click", () => this.act("apart", { point: q(".lab-point").value }));
      on(q(".lab-point"), "keydown", (event) => event.key === "Enter" && this.act("apart", { point: q(".lab-point").value }));
      on(q(".lab-back"), "click", () => to(this.apart.index - 1));
      on(q(".lab-next"), "click", () => to(this.apart.index + 1));
      on(q(".lab-apart-here"), "keydown", (event) => {
        const index = this.apart && { ArrowLeft: this.apart.index - 1, ArrowRight: this.apart.index + 1,
          Home: 0, End: this.apart.count - 1 }[event.key];
        if (index === undefined || index === null) return;
        event.preventDefault();
        to(index);
      });
      for (const input of root.querySelectorAll(".lab > .lab-controls input[type=text]")) {
        on(input, "keydown", (event) => {
          if (event.key === "Enter") this.act(this.worker ? "step" : "open");
        });
      }
      if (this.learnerEngine() !== null) this.engineChoice.hidden = false;
      this.buttons();
    }

    find() {
      const q = (selector) => this.root.querySelector(selector);
      this.trainButton = q(".lab-train");
      this.pauseButton = q(".lab-pause");
      this.stepButton = q(".lab-step");
      this.resetButton = q(".lab-reset");
      this.gradients = q(".lab-gradients");
      this.engineChoice = q(".lab-source-choice");
      this.engine = q(".lab-source");
      this.status = q(".lab-status");
      this.problemNode = q(".lab-problem");
      this.noteNode = q(".lab-note");
      this.clearButton = q(".lab-clear");
      this.labelChoice = q(".lab-label");
      this.added = ""; // the added points, as the page's address keeps them
    }

    // The fields' first values, and the added points, from the page's address (a link).
    fromAddress() {
      const given = new URLSearchParams(location.search);
      for (const name of this.data.fields) {
        const field = this.root.querySelector(`.lab-${name}`);
        if (given.has(name) && field) field.value = given.get(name);
      }
      this.added = given.get("added") || "";
    }

    learnerEngine() {
      try {
        return localStorage.getItem(this.data.learnerKey);
      } catch (error) {
        return null;
      }
    }

    settings() {
      const value = (name) => this.root.querySelector(`.lab-${name}`).value;
      return Object.fromEntries(this.data.fields.map((name) => [name, value(name)]));
    }

    buttons() {
      const working = (this.queued > 0 || this.pending !== null) && !this.training;
      const busy = working && !this.quiet; // a redraw for a changed field leaves them usable
      this.trainButton.disabled = this.training || busy;
      this.pauseButton.disabled = !this.training;
      this.stepButton.disabled = this.resetButton.disabled = this.training || busy;
      this.clearButton.disabled = this.training || busy || !this.worker;
      this.root.querySelector(".lab-set").disabled = this.training || busy;
      this.root.querySelector(".lab-take-apart").disabled = this.training || busy;
      const part = this.apart;
      this.root.querySelector(".lab-back").disabled = this.training || busy || !part || part.index === 0;
      this.root.querySelector(".lab-next").disabled = this.training || busy || !part || part.index === part.count - 1;
      this.root.dataset.state = this.training ? "training" : working ? "busy" : "idle";
    }

    problem(text, withLink) {
      this.problemNode.hidden = !text;
      this.problemNode.textContent = text || "";
      if (text && withLink && this.data.learner) {
        const link = bookPage.element("a", "", "learner mode's table");
        link.href = this.data.learner;
        this.problemNode.append(" See ", link, ".");
      }
    }

    // One request to the lab's Python; its answer, or an Error if Python stopped.
    ask(request) {
      const python = window.bookPython;
      python.lab = this;
      python.warm();
      return new Promise((resolve, reject) => {
        this.pending = { resolve, reject };
        python.ready.then(() => python.post({ kind: "lab", request: JSON.stringify(request) }), reject);
      });
    }

    receive(message) {
      const pending = this.pending;
      this.pending = null;
      if (pending) pending.resolve(JSON.parse(message.answer));
    }

    broken(why) {
      const pending = this.pending;
      this.pending = null;
      this.worker = null;
      this.training = false;
      if (pending) pending.reject(new Error(why));
    }

    request(action, more = {}) {
      const request = { action, settings: this.settings(), gradients: this.gradients.checked, ...more };
      if (action === "open") {
        const page = window.bookPython.page();
        if (!page) throw new Error("the chapter's fences are not on this page");
        request.page = JSON.stringify(page.data);
        request.codes = page.codes;
        if (this.engine.value === "learner") request.learner = this.learnerEngine();
        request.added = this.added;
      }
      return request;
    }

    // Send one action; show its answer. True if the lab went on (a frame came back).
    // Requests go one after another: a Step clicked while a changed field is being taken
    // waits for it, instead of being lost.
    act(action, more = {}) {
      this.queued += 1;
      const done = this.chain.then(() => this.actNow(action, more));
      this.chain = done.catch(() => false).finally(() => {
        this.queued -= 1;
        this.buttons();
      });
      this.buttons();
      return done;
    }

    async actNow(action, more = {}) {
      if (this.pending !== null && !this.training) return false;
      this.quiet = action === "draw";
      if (!window.bookPython) return false;
      if (action !== "open" && this.worker !== window.bookPython.worker) {
        if (!(await this.actNow("open"))) return false; // a fresh lab in this Python first
        this.quiet = action === "draw";
      }
      if (action === "open") this.status.textContent = "Starting the lab: the chapter's fences above run first…";
      let answer;
      try {
        const ask = this.ask(this.request(action, more));
        this.buttons();
        answer = await ask;
      } catch (error) {
        this.pending = null;
        this.problem(`The page's Python stopped (${error.message}); Reset starts it again.`);
        this.buttons();
        return false;
      }
      if (action === "open" && answer.frame) this.worker = window.bookPython.worker;
      this.show(answer);
      this.buttons();
      return Boolean(answer.frame);
    }

    show(answer) {
      if (answer.apart) return this.showApart(answer.apart);
      if (answer.refused) {
        this.problem(answer.refused);
        this.root.dataset.refused = "yes";
        this.status.textContent = answer.refused;
        return;
      }
      delete this.root.dataset.refused;
      const frame = answer.frame;
      window.bookLab.frame = frame;
      this.root.dataset.step = frame.step;
      this.problem(frame.problem, frame.to_learner);
      this.noteNode.hidden = !frame.note;
      if (frame.note) this.noteNode.textContent = frame.note;
      if (frame.announce) this.status.textContent = frame.note ? `${frame.note} ${frame.status}` : frame.status;
      this.chart.show(frame);
      if (frame.boundary !== undefined) {
        this.plane.show(frame);
        this.root.querySelector(".lab-network-here").innerHTML = frame.network || `<p>${frame.network_note}</p>`;
        this.root.querySelector(".lab-what").textContent = frame.shows;
        this.units(frame.units);
      }
      this.root.querySelector(".lab-now").textContent = frame.status;
      this.root.querySelector(".lab-weight-now").textContent = frame.weight;
      this.root.querySelector(".lab-speed").textContent = frame.speed;
      this.added = frame.added;
      if (frame.address !== location.search) {
        history.replaceState(history.state, "", location.pathname + frame.address + location.hash);
      }
    }

    // A part of the step taken apart: its sentence (told to screen readers) and drawing.
    showApart(part) {
      this.apart = part;
      this.problem("");
      const q = (selector) => this.root.querySelector(selector);
      q(".lab-apart-text").textContent = `Part ${part.index + 1} of ${part.count}. ${part.text}`;
      q(".lab-apart-here").innerHTML = part.svg;
      q(".lab-apart-units").hidden = !part.details.length;
      q(".lab-apart-list").replaceChildren(...part.details.map((line) => bookPage.element("li", "", line)));
      this.buttons();
    }

    // Each hidden unit's map: its levels (-3 to 3) painted, a pixel a cell, in the moons' colours.
    units(layers) {
      const here = this.root.querySelector(".lab-units-here");
      const style = getComputedStyle(this.root);
      const colour = { 1: style.getPropertyValue("--lab-inner").trim(), "-1": style.getPropertyValue("--lab-outer").trim() };
      here.replaceChildren();
      for (const layer of layers) {
        here.append(bookPage.element("p", "lab-units-summary", layer.summary));
        const row = bookPage.element("div", "lab-units-row");
        for (const unit of layer.units) {
          const box = bookPage.element("span", unit.dead ? "lab-unit-box lab-dead" : "lab-unit-box");
          const canvas = document.createElement("canvas");
          canvas.width = canvas.height = unit.size;
          canvas.setAttribute("role", "img");
          canvas.setAttribute("aria-label", unit.text);
          canvas.title = unit.text;
          const paint = canvas.getContext("2d");
          unit.levels.forEach((level, i) => {
            if (level === 0) return;
            paint.globalAlpha = Math.abs(level) / 3;
            paint.fillStyle = colour[Math.sign(level)];
            paint.fillRect(i % unit.size, Math.floor(i / unit.size), 1, 1);
          });
          box.append(canvas);
          row.append(box);
        }
        here.append(row);
      }
    }

    async train() {
      if (this.training) return;
      if (this.worker !== window.bookPython?.worker && !(await this.act("open"))) return;
      this.training = true;
      this.buttons();
      while (this.training) {
        const went = await this.act("train");
        if (!went || window.bookLab.frame.done || this.root.dataset.refused) break;
      }
      this.training = false;
      this.buttons();
      this.status.textContent = window.bookLab.frame ? window.bookLab.frame.status : this.status.textContent;
      this.root.dataset.state = "idle";
    }

    pause() {
      this.training = false; // the slice in progress ends, and no other is asked for
    }

    leave() {
      this.training = false;
      this.leaving.abort();
      if (window.bookPython?.lab === this) window.bookPython.lab = null;
    }
  }

  // The chart: the step under the pointer, or chosen with the arrow keys, read out (the
  // sentences are the frame's); a cursor line marks it. Without one, the last step.
  class Chart {
    constructor(lab, here, readout, on) {
      this.here = here;
      this.readout = readout;
      this.frame = null;
      this.chosen = null; // the step the reader points at, or null
      on(here, "pointermove", (event) => this.point(event));
      on(here, "pointerleave", () => this.choose(null));
      on(here, "keydown", (event) => this.key(event));
      on(here, "blur", () => this.choose(null));
    }

    show(frame) {
      this.frame = frame;
      this.here.innerHTML = frame.curves;
      const last = Math.max(frame.readouts.length - 1, 0);
      this.here.setAttribute("aria-valuemax", last);
      if (this.chosen !== null && this.chosen > last) this.chosen = null;
      this.choose(this.chosen);
    }

    point(event) {
      const svg = this.here.querySelector("svg");
      if (!svg || !this.frame) return;
      const box = svg.getBoundingClientRect();
      const { left, right, last, width } = this.frame.chart;
      const x = ((event.clientX - box.left) / box.width) * width;
      this.choose(Math.round(((x - left) / (right - left)) * last));
    }

    key(event) {
      if (!this.frame || !this.frame.readouts.length) return;
      const last = this.frame.readouts.length - 1;
      const now = this.chosen ?? last;
      const to = { ArrowLeft: now - 1, ArrowDown: now - 1, ArrowRight: now + 1, ArrowUp: now + 1,
        PageDown: now - 10, PageUp: now + 10, Home: 0, End: last }[event.key];
      if (to === undefined) return;
      event.preventDefault();
      this.choose(Math.min(Math.max(to, 0), last));
    }

    choose(step) {
      const readouts = this.frame ? this.frame.readouts : [];
      if (step !== null) step = Math.min(Math.max(step, 0), readouts.length - 1);
      this.chosen = step !== null && step >= 0 ? step : null;
      const shown = this.chosen ?? readouts.length - 1;
      const text = shown >= 0 ? readouts[shown] : "No steps yet.";
      this.readout.textContent = text;
      this.here.setAttribute("aria-valuenow", Math.max(shown, 0));
      this.here.setAttribute("aria-valuetext", text);
      const cursor = this.here.querySelector(".lab-cursor");
      if (!cursor) return;
      cursor.setAttribute("visibility", this.chosen === null ? "hidden" : "visible");
      if (this.chosen === null) return;
      const { left, right, last, top, bottom } = this.frame.chart;
      const x = left + (this.chosen / last) * (right - left);
      for (const [name, value] of [["x1", x], ["x2", x], ["y1", top], ["y2", bottom]]) cursor.setAttribute(name, value);
    }
  }

  // The plane: a click adds a training point there; with the keyboard, the arrow keys move
  // a cross and Enter (or Space) adds one there, of the moon chosen in the lab's "label".
  class Plane {
    constructor(lab, here, on) {
      this.lab = lab;
      this.here = here;
      this.frame = null;
      this.cross = null; // [x, y] in the SVG's units, once the keyboard moved it
      on(here, "click", (event) => this.click(event));
      on(here, "keydown", (event) => this.key(event));
      on(here, "blur", () => { this.cross = null; this.drawCross(); });
    }

    show(frame) {
      this.frame = frame;
      this.here.innerHTML = frame.boundary;
      this.drawCross();
    }

    // A place in the SVG's units as a point of the plane.
    at(x, y) {
      const { x0, x1, y0, y1, width, height } = this.frame.plane;
      return [x0 + (x / width) * (x1 - x0), y1 - (y / height) * (y1 - y0)];
    }

    add(x, y) {
      if (this.lab.training || !this.frame) return;
      this.lab.act("add", { point: this.at(x, y), label: Number(this.lab.labelChoice.value) });
    }

    click(event) {
      const svg = this.here.querySelector("svg");
      if (!svg || !this.frame) return;
      const box = svg.getBoundingClientRect();
      const { width, height } = this.frame.plane;
      this.add(((event.clientX - box.left) / box.width) * width, ((event.clientY - box.top) / box.height) * height);
    }

    key(event) {
      if (!this.frame) return;
      const { width, height } = this.frame.plane;
      const move = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[event.key];
      if (move) {
        event.preventDefault();
        const [x, y] = this.cross ?? [width / 2, height / 2];
        const stride = event.shiftKey ? 40 : 8;
        this.cross = [Math.min(Math.max(x + move[0] * stride, 0), width), Math.min(Math.max(y + move[1] * stride, 0), height)];
        this.drawCross();
      } else if ((event.key === "Enter" || event.key === " ") && this.cross) {
        event.preventDefault();
        this.add(...this.cross);
      }
    }

    drawCross() {
      const svg = this.here.querySelector("svg");
      if (!svg) return;
      svg.querySelector(".lab-cross")?.remove();
      if (!this.cross) return;
      const [x, y] = this.cross;
      const cross = document.createElementNS("http://www.w3.org/2000/svg", "path");
      cross.setAttribute("class", "lab-cross");
      cross.setAttribute("d", `M${x - 6},${y}H${x + 6}M${x},${y - 6}V${y + 6}`);
      svg.append(cross);
    }
  }

  let current = null; // the Lab of the page shown

  // On every page Material shows: a lab left behind stops training and lets go.
  function setup() {
    if (current && !current.root.isConnected) {
      current.leave();
      current = null;
    }
    const root = document.querySelector(".lab");
    if (!root || root.dataset.state) return;
    current = new Lab(root);
  }

  // docs/assets/page/page.js comes after the page's content: on the first page, wait for it.
  if (window.bookPage) bookPage.onPage(setup);
  else document.addEventListener("DOMContentLoaded", () => bookPage.onPage(setup));
})();
