// The two-moons lab: Train, Pause, Step and Reset under the chapter's training fence.
//
// The lab's markup is written while the site is built (tools/site/lab.py); what it shows is
// decided in the page's Python (tools/page/lab.py, in the worker of the Run buttons,
// docs/assets/notebook/worker.js: window.bookPython, the same Python, not a second one).
// This script only sends what the reader did, with the settings as typed and the chapter's
// fences as edited, and puts each answer in the page: a frame (status, the curves, the
// boundary and the network as SVG, a problem to show) or a refusal (a message; the lab
// keeps what it had). Training goes a slice at a time (about 0.12 s of Python each): Pause
// takes effect when the slice in progress ends. Opened from disk, it runs as served
// (notebook.js starts the same Python from the book's folder). The last frame is window.bookLab.frame (the tests read its losses).

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
      this.find();
      root.dataset.state = "idle";
      const on = (node, event, handler) => node.addEventListener(event, handler, { signal: this.leaving.signal });
      on(this.trainButton, "click", () => this.train());
      on(this.pauseButton, "click", () => this.pause());
      on(this.stepButton, "click", () => this.act("step"));
      on(this.resetButton, "click", () => this.act("open"));
      on(this.gradients, "change", () => this.worker && !this.training && this.act("draw"));
      on(root, "pointerenter", () => window.bookPython?.warm());
      on(root, "focusin", () => window.bookPython?.warm());
      for (const input of root.querySelectorAll("input[type=text]")) {
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
      this.engineChoice = q(".lab-engine-choice");
      this.engine = q(".lab-engine");
      this.status = q(".lab-status");
      this.problemNode = q(".lab-problem");
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
      return { rate: value("rate"), steps: value("steps"), seed: value("seed") };
    }

    buttons() {
      const busy = this.pending !== null && !this.training;
      this.trainButton.disabled = this.training || busy;
      this.pauseButton.disabled = !this.training;
      this.stepButton.disabled = this.resetButton.disabled = this.training || busy;
      this.root.dataset.state = this.training ? "training" : busy ? "busy" : "idle";
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

    request(action) {
      const request = { action, settings: this.settings(), gradients: this.gradients.checked };
      if (action === "open") {
        const page = window.bookPython.page();
        if (!page) throw new Error("the chapter's fences are not on this page");
        request.page = JSON.stringify(page.data);
        request.codes = page.codes;
        if (this.engine.value === "learner") request.learner = this.learnerEngine();
      }
      return request;
    }

    // Send one action; show its answer. True if the lab went on (a frame came back).
    async act(action) {
      if (this.pending !== null && !this.training) return false;
      if (!window.bookPython) return false;
      if (action !== "open" && this.worker !== window.bookPython.worker) {
        if (!(await this.act("open"))) return false; // a fresh lab in this Python first
      }
      if (action === "open") this.status.textContent = "Starting the lab: the chapter's fences above run first…";
      let answer;
      try {
        const ask = this.ask(this.request(action));
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
      if (answer.refused) {
        this.problem(answer.refused);
        this.root.dataset.refused = "yes";
        return;
      }
      delete this.root.dataset.refused;
      const frame = answer.frame;
      window.bookLab.frame = frame;
      this.root.dataset.step = frame.step;
      this.problem(frame.problem, frame.to_learner);
      if (frame.announce) this.status.textContent = frame.status;
      this.root.querySelector(".lab-curves-here").innerHTML = frame.curves;
      if (frame.boundary !== undefined) {
        this.root.querySelector(".lab-boundary-here").innerHTML = frame.boundary;
        this.root.querySelector(".lab-network-here").innerHTML = frame.network || `<p>${frame.network_note}</p>`;
        this.root.querySelector(".lab-what").textContent = frame.shows;
      }
      this.root.querySelector(".lab-now").textContent = frame.status;
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
