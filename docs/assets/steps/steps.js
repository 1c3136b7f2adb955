// Step through backward on a figure: the steps the engine took, recorded while the site
// was built (tools/page/steps.py), played on the figure's own inline SVG.
//
// After each such figure the page carries its steps as JSON (a hidden element with
// data-steps, read with bookPage.data: docs/assets/page/page.js):
// for every position (0, the start, to the last step) and every track of the figure (a
// figure may play several walks side by side), the ids of the boxes and arrows to light
// and the gradient texts to show, and the caption in words. This script only shows them:
// it computes nothing, needs no Python, and works opened from disk. Until the reader
// steps, the figure stays as drawn (the final state).
//
// When the reader's code draws a figure again (notebook.js), the new drawing and its new
// steps take the old ones' place: window.bookSteps.redraw(figure, svg, data).

(function () {
  "use strict";

  const PLAY_EVERY = 1200; // ms between steps while playing
  const KINDS = { active: "steps-active", receives: "steps-receives", edges: "steps-edge" };

  const { element } = bookPage; // docs/assets/page/page.js

  class Stepper {
    constructor(data, held) {
      const svg = held.previousElementSibling;
      this.timer = null;
      this.live = false; // drawn from the reader's code rather than the book's
      this.figure = svg.parentElement.matches("p") ? svg.parentElement : svg;
      this.build(this.figure, data);
      this.use(svg, data);
    }

    // Play `data` on `svg`, from as drawn, and on the figure's drawing for a phone, if it
    // has one (its ids are data-id: tools/site/figures.py).
    use(svg, data) {
      this.data = data;
      this.svg = svg;
      this.ids = new Map(); // id -> its elements, in either drawing
      for (const e of this.figure.querySelectorAll("svg [id], svg [data-id]")) {
        const id = e.id || e.dataset.id;
        this.ids.set(id, [...(this.ids.get(id) ?? []), e]);
      }
      this.texts = new Map(); // "id|prefix" -> [[a <text> element, its text as drawn], ...]
      for (const position of data.positions) {
        for (const track of position.tracks) {
          for (const [id, prefix] of track.texts) this.readout(id, prefix);
        }
      }
      this.position = null; // null: as drawn, nothing lit
      this.show();
    }

    redraw(svg, data, live) {
      this.pause();
      this.svg.replaceWith(svg);
      if (this.figure === this.svg) this.figure = svg;
      this.live = live;
      this.use(svg, data);
    }

    readout(id, prefix) {
      const key = `${id}|${prefix}`;
      if (this.texts.has(key)) return this.texts.get(key);
      const texts = (this.ids.get(id) ?? []).map((g) => [...g.querySelectorAll("text")].find((t) => t.textContent.startsWith(prefix)));
      const found = texts.filter(Boolean).map((text) => [text, text.textContent]);
      this.texts.set(key, found);
      return found;
    }

    build(figure, data) {
      const caption = figure.nextElementSibling;
      const number = caption && /^Figure (\d+)\./.exec(caption.textContent.trim());
      const region = element("div", "steps");
      region.tabIndex = 0;
      region.setAttribute("role", "region");
      region.setAttribute(
        "aria-label",
        `${number ? `Figure ${number[1]}` : "The figure"}, backward step by step ` +
          "(arrow keys step, Home and End jump, Space plays)",
      );
      region.dataset.figure = data.figure;
      figure.before(region);
      const bar = element("div", "steps-bar");
      const button = (name, label, title, act) => {
        const b = element("button", `steps-button steps-${name}`, label);
        b.type = "button";
        b.title = title;
        b.addEventListener("click", () => act(), { signal: leaving.signal });
        bar.append(b);
        return b;
      };
      this.startButton = button("start", "|◀ Start", "Back to the start (Home)", () => this.go(0));
      this.backButton = button("back", "◀ Back", "One step back (←)", () => this.back());
      this.playButton = button("play", "▶ Play", "Play the steps (Space)", () => this.toggle());
      this.nextButton = button("next", "Next ▶", "One step forward (→)", () => this.go(this.at() + 1));
      this.endButton = button("end", "End ▶|", "To the last step (End)", () => this.go(this.data.steps));
      this.caption = element("div", "steps-caption");
      this.caption.setAttribute("aria-live", "polite");
      region.append(figure, bar, this.caption);
      region.addEventListener("keydown", (event) => this.key(event), { signal: leaving.signal });
      this.region = region;
    }

    at() {
      return this.position === null ? -1 : this.position; // as drawn: Next goes to the start
    }

    back() {
      // As drawn, the figure shows the end: one step back is the step before the last.
      this.go(this.position === null ? this.data.steps - 1 : this.position - 1);
    }

    key(event) {
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      const onButton = event.target.closest("button");
      const acts = {
        ArrowLeft: () => this.back(),
        ArrowRight: () => this.go(this.at() + 1),
        Home: () => this.go(0),
        End: () => this.go(this.data.steps),
        " ": () => this.toggle(),
      };
      if (!(event.key in acts) || (onButton && (event.key === " " || event.key === "Enter"))) return;
      event.preventDefault();
      acts[event.key]();
    }

    go(position, playing = false) {
      if (!playing) this.pause();
      this.position = Math.max(0, Math.min(this.data.steps, position));
      this.show();
    }

    toggle() {
      if (this.timer !== null) return this.pause();
      if (this.position === null || this.position >= this.data.steps) this.go(0);
      this.playButton.textContent = "‖ Pause";
      this.playButton.title = "Pause (Space)";
      this.timer = setInterval(() => {
        if (this.position >= this.data.steps) return this.pause();
        this.go(this.position + 1, true);
        if (this.position >= this.data.steps) this.pause();
      }, PLAY_EVERY);
    }

    pause() {
      if (this.timer === null) return;
      clearInterval(this.timer);
      this.timer = null;
      this.playButton.textContent = "▶ Play";
      this.playButton.title = "Play the steps (Space)";
    }

    show() {
      for (const lit of this.figure.querySelectorAll(".steps-active, .steps-receives, .steps-edge")) {
        lit.classList.remove(...Object.values(KINDS));
      }
      const position = this.position === null ? null : this.data.positions[this.position];
      const drawings = this.figure.matches("svg") ? [this.figure] : this.figure.querySelectorAll("svg");
      for (const drawing of drawings) drawing.classList.toggle("steps-on", position !== null);
      for (const found of this.texts.values()) for (const [text, drawn] of found) text.textContent = drawn;
      if (position !== null) {
        for (const track of position.tracks) {
          for (const [kind, className] of Object.entries(KINDS)) {
            for (const id of track[kind]) for (const e of this.ids.get(id) ?? []) e.classList.add(className);
          }
          for (const [id, prefix, value] of track.texts) {
            for (const [text] of this.readout(id, prefix)) text.textContent = prefix + value;
          }
        }
      }
      const lines = position
        ? position.caption
        : [
            `${this.data.steps} steps of backward, recorded ` +
              (this.live ? "from the code you ran on this page" : "from this chapter's code") +
              " with the engine. " +
              "Step through them: the buttons, or ← → Home End and Space on the figure.",
          ];
      this.caption.replaceChildren(...lines.map((line) => element("span", "steps-line", line)));
      this.region.dataset.position = this.position === null ? "" : String(this.position);
      this.reveal();
      const at = this.position;
      this.startButton.disabled = this.backButton.disabled = at === 0;
      this.nextButton.disabled = this.endButton.disabled = at === this.data.steps;
    }

    // Keep the lit node of the panel the caption is about (data.key, a track; else the
    // first lit) in sight, in the drawing shown: sideways in the figure's paragraph, which
    // scrolls on a narrow screen, and in the page, each only as far as needed.
    reveal() {
      if (this.position === null) return;
      const track = this.data.positions[this.position].tracks[this.data.key ?? 0];
      const shown = track.active.flatMap((id) => this.ids.get(id) ?? []).find((e) => e.getClientRects().length);
      shown?.scrollIntoView({ block: "nearest", inline: "nearest", behavior: "instant" });
    }
  }

  const steppers = new Map(); // figure name -> its Stepper, on this page
  let leaving = new AbortController(); // aborted when the page is left: its listeners go

  // On every page Material shows (instant navigation swaps pages in): the last page's
  // steppers stop playing and are forgotten.
  function setup() {
    const left = ![...steppers.values()].some((stepper) => stepper.region.isConnected);
    for (const stepper of steppers.values()) stepper.pause();
    steppers.clear();
    if (left) {
      leaving.abort();
      leaving = new AbortController();
    }
    for (const held of document.querySelectorAll(".page-data[data-steps]")) {
      if (held.dataset.ready || !held.previousElementSibling?.matches("svg")) continue;
      held.dataset.ready = "yes";
      const data = bookPage.data(held);
      steppers.set(data.figure, new Stepper(data, held));
    }
  }

  window.bookSteps = {
    has: (figure) => steppers.has(figure),
    data: (figure) => steppers.get(figure)?.data ?? null,
    // The figure drawn again: `svg` in place of the one shown, playing `data`. Drawn from
    // the book's code again (the book's own svg and data back), it says so again.
    redraw(figure, svg, data) {
      steppers.get(figure).redraw(svg, data, svg.dataset.live === "yes");
    },
  };

  bookPage.onPage(setup); // docs/assets/page/page.js
})();
