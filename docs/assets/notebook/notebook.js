// Run buttons for a chapter page: the chapter is one notebook, as under pytest.
//
// The page carries its python fences as JSON (a hidden element, #notebook-fences, written
// by tools/site/page_data.py while the site is built, read with bookPage.data): code, first
// line, engine or not, and why a fence cannot run in a browser, if it cannot. The fences
// the page shows are its python code blocks, in the same order; each gets a bar with Run,
// Stop and Reset, and its code becomes a code editor (CodeMirror 6, window.CodeEditor: the
// script assets/editor/editor.js, bundled by tools/site/editor.py; Shift+Enter or
// Ctrl+Enter runs, Esc goes back to the Run button). Above the first fence, the chapter's
// bar: Run all, Restart, Reset all, and while Run all goes, how far it has come and a Stop.
//
// The editor's script (380 kB) is not loaded with the page: the page says where it is
// (a hidden element, #code-editor, tools/site/editor.py), and the editors are made when
// the reader first reaches for a fence (the pointer over a fence or its Run bar, the focus
// in them, a Run), or at once where the reader left edits. Until then the book's highlighted
// code shows, and Run runs the book's code. An editor never traps the keyboard: Tab moves
// on until the reader types in it; from then on Tab indents and Esc leaves (a line under
// the editor says which, while it has the focus). A reader's edit of a fence is kept in
// the browser (localStorage, per chapter and fence name) across reloads: its bar says
// "edited", its Reset puts the book's code back, and Reset all does so for every fence.
// When a Run ends, what it printed (or how it failed) is announced to screen readers.
//
// How the chapter runs (run the fences above, rerun one alone, Run all, stale marks, output
// compared with the book's, where a failure is, which figures to draw again) is decided
// in Python, by tools/page/run.py in the worker, the same code that runs chapters under
// pytest. This script asks it to run; cells.js (window.bookCells) shows what it tells.
// The page's Python, one worker for the visit, and how it starts: python.js
// (window.bookPython); each chapter's first Run asks it for a fresh namespace. Each page
// Material shows gets its own Notebook (setup, on Material's document$); the last page's
// one is left: its editors destroyed, and a Run still going stopped. While a Run goes, the
// fence that runs says so ("running fence 2 of 5") and carries the Stop button. Stop ends
// the worker; the next Run starts a fresh one and runs the fences above again. Without
// the fence data (a site built without the runtime) this script does nothing.

(function () {
  "use strict";

  const { element, button, loaded } = bookPage; // docs/assets/page/page.js
  const python = window.bookPython; // python.js
  const { Stopped } = python;
  const { Cell, LiveFigure } = window.bookCells; // cells.js

  // The code editor (CodeMirror 6, window.CodeEditor) and its stylesheet, loaded when the
  // reader first reaches for code; `where` is the page's #code-editor data: {script, style}.
  // The script stays for the visit. The stylesheet is put back on every page that asks,
  // since instant navigation replaces the head's links; the editors wait until it applies
  // (without it, a fence shows its code twice, and the blocks below move under the pointer).
  const editorScript = {
    loading: null, // the script's load
    style: null, // the stylesheet's <link>, and its load
    styled: null,
    load(where) {
      if (!this.style?.isConnected) {
        this.style = element("link");
        this.style.rel = "stylesheet";
        this.style.href = new URL(where.style, location.href).href;
        this.styled = loaded(this.style);
        document.head.append(this.style);
      }
      if (!this.loading) {
        const script = element("script");
        script.src = new URL(where.script, location.href).href;
        this.loading = loaded(script).catch((error) => {
          this.loading = null;
          throw error;
        });
        document.head.append(script);
      }
      return Promise.all([this.loading, this.styled]);
    },
  };

  // The reader reaches for code: the pointer over its bar, the focus on the bar or in the
  // code (reach(false)), a click in the code (reach(true)). Learner mode's too.
  function onReach(bar, code, reach, options) {
    for (const [node, event] of [[bar, "pointerenter"], [bar, "focusin"], [code, "focusin"]]) {
      node.addEventListener(event, () => reach(false), options);
    }
    code.addEventListener("pointerdown", () => reach(true), options);
  }

  // A reader's edits, kept in this browser across reloads: for each chapter, the edited
  // code by fence name (tools/site/fences.py names them). Storage may be refused (a private
  // window, a full disk): the edits then last as long as the page.
  const kept = {
    key: (chapter) => `literate-micrograd:edits:${chapter}`,
    read(chapter) {
      try {
        return JSON.parse(localStorage.getItem(this.key(chapter))) || {};
      } catch {
        return {};
      }
    },
    write(chapter, edits) {
      try {
        if (Object.keys(edits).length) localStorage.setItem(this.key(chapter), JSON.stringify(edits));
        else localStorage.removeItem(this.key(chapter));
      } catch {
        // not kept: see above
      }
    },
  };

  // What the next page says when leaving one stopped a fence that ran (set by leave()).
  let notice = null;

  class Notebook {
    constructor(page, blocks) {
      this.page = page;
      this.chapter = page.chapter;
      // Every listener set for the page, removed when it is left: Material keeps some of a
      // left page's elements referenced, and a listener would keep this Notebook with them.
      this.leaving = new AbortController();
      this.listening = { signal: this.leaving.signal }; // addEventListener's options
      const heading = document.querySelector("article h1")?.textContent.replace(/¶\s*$/, ""); // less its link
      this.title = heading?.trim() ?? this.chapter;
      this.edits = kept.read(this.chapter); // fence name -> the reader's code
      this.editorsWanted = false;
      this.clicked = null; // a fence clicked before the editors were made
      const names = page.names || [];
      this.cells = page.fences.map(
        (fence, index) => new Cell(this, fence, index, blocks[index], names[index] ?? String(index)),
      );
      this.worker = null; // the worker whose namespace is this page's (null: none is)
      this.target = null; // the fence whose Run is in progress
      this.waiting = null; // {resolve, reject} of the Run in progress, once Python has it
      this.running = null; // the fence running now
      this.loading = null; // the fence whose Run waits for Python to load
      this.all = false; // the Run in progress is a Run all
      this.figures = (page.figures || []).map((figure) => new LiveFigure(figure));
      this.left = false; // another page is shown
      this.tools = this.makeTools();
      python.listener = this;
      document.body.dataset.notebook = "idle"; // "running" while a Run is in progress
      document.body.dataset.chapter = this.chapter; // whose Run buttons are on the page
      if (Object.keys(this.edits).length) this.wantEditors(); // show the reader's edits
      for (const cell of this.cells) {
        if (!cell.bar || cell.fence.blocked) continue;
        // A click in the book's code, before the editors are made: that one first, focused.
        const reach = (clicked) => (clicked ? this.wantEditors(cell) : this.warm());
        onReach(cell.bar, cell.block, reach, this.listening);
      }
    }

    // The reader reaches for a fence: start loading Python, if it is not loaded or loading,
    // and the editors, if they are not made.
    warm() {
      python.warm();
      this.wantEditors();
    }

    wantEditors(clicked = null) {
      if (clicked && !clicked.editor) this.clicked = clicked;
      if (this.editorsWanted) return;
      this.editorsWanted = true;
      editorScript.load(this.page.editor).then(
        () => this.makeEditors(),
        (error) => console.error(`notebook: ${error.message}: the fences cannot be edited`),
      );
    }

    // A fence's code changed: keep every edit of the chapter, as it stands, in the browser.
    keep(cell) {
      if (cell.kept === null) delete this.edits[cell.name];
      else this.edits[cell.name] = cell.kept;
      kept.write(this.chapter, this.edits);
    }

    // Another page is shown: a fence still running stops (its worker ends; a Run that only
    // waits for Python to load gives up, and Python loads on), the editors and listeners go.
    leave() {
      this.left = true;
      if (this.waiting !== null) {
        const where = (this.running ?? this.cells[this.target]).where;
        notice =
          `Leaving “${this.title}” stopped the fence at ${where}, which was running: ` +
          "its Python ended. The next Run starts Python afresh.";
        this.stop();
      }
      for (const cell of this.cells) if (cell.editor) cell.editor.destroy();
      this.leaving.abort();
      if (python.listener === this) python.listener = null;
      delete document.body.dataset.notebook;
      delete document.body.dataset.chapter;
    }

    // An editor takes some 30 ms to make: one at a time while the browser is idle, in page
    // order, so that a long chapter opens as fast as a short one.
    makeEditors() {
      const waiting = this.cells.filter((cell) => cell.bar && !cell.fence.blocked);
      const idle = window.requestIdleCallback || ((work) => setTimeout(work, 0));
      const next = () => {
        const clicked = this.clicked && !this.clicked.editor ? this.clicked : null;
        const cell = clicked ?? waiting.shift();
        if (!cell || this.left) return;
        if (!cell.editor) cell.makeEditor();
        if (clicked) cell.editor.focus();
        this.clicked = null;
        idle(next, { timeout: 200 });
      };
      idle(next, { timeout: 200 });
    }

    // Run all, Restart and Reset all, once for the page: above its first fence.
    makeTools() {
      const tools = element("div", "notebook-tools");
      tools.setAttribute("role", "toolbar");
      tools.setAttribute("aria-label", "The chapter's code");
      const runnable = this.cells.filter((c) => c.bar && !c.fence.blocked);
      const last = runnable.length ? runnable[runnable.length - 1].index : null;
      const runAll = button("notebook-run-all", "▶ Run all", "Run every fence from the top, in a fresh namespace");
      const stop = button("notebook-stop", "■ Stop", "Stop Run all (the next Run starts Python afresh)");
      stop.hidden = true;
      this.stopAll = stop;
      this.toolsStatus = element("span", "notebook-status"); // how far Run all has come
      // What a Run ends with, for screen readers (not shown).
      this.announcer = element("div", "notebook-announce visually-hidden");
      this.announcer.setAttribute("role", "status");
      const restart = button("notebook-restart", "↻ Restart", "Forget what ran: the next Run starts from the top");
      const resetAll = button("notebook-reset-all", "↺ Reset all", "Put back the book's code in every fence");
      const page = this.listening;
      runAll.addEventListener("click", () => last !== null && this.run(last, { all: true }), page);
      stop.addEventListener("click", () => this.stop(), page);
      restart.addEventListener("click", () => this.restart(), page);
      resetAll.addEventListener("click", () => this.resetAll(), page);
      const note = element("span", "notebook-note", "The chapter's fences: one notebook.");
      tools.append(runAll, stop, restart, resetAll, this.toolsStatus, note, this.announcer);
      const first = this.cells.find((c) => c.block);
      if (last !== null && first) first.block.before(tools);
      return tools;
    }

    receive(message) {
      if (message.kind === "event") this.told(message.event);
      else if (message.kind === "finished" && this.waiting) this.waiting.resolve();
      else if (message.kind === "figure") {
        const figure = this.figures.find((f) => f.name === message.name);
        if (message.book) figure?.restore();
        else figure?.drawn(message);
      } else if (message.kind === "graphs") this.cells[message.index].drew(message.drawn);
    }

    // What tools/page/run.py tells as the run goes (see its docstring).
    told(event) {
      const cell = this.cells[event.index];
      if (event.kind === "fresh") this.cells.forEach((c) => c.clear());
      else if (event.kind === "running") {
        this.running = cell;
        cell.running(event.status);
        if (this.all) this.toolsStatus.textContent = `Run all: ${event.status}`;
      } else if (event.kind === "print") cell.print(event.text);
      else if (event.kind === "done") cell.done(event);
      else cell.setState(event.kind, event.status); // waiting, not-run, stale
    }

    broken(failure) {
      if (this.waiting) this.waiting.reject(failure);
    }

    // Run fence `target` as tools/page/run.py decides (a notebook's Run); `all`: Run all.
    async run(target, { all = false } = {}) {
      const cell = this.cells[target];
      if (this.target !== null) return;
      this.target = target;
      this.all = all;
      document.body.dataset.notebook = "running";
      this.busy(true);
      let stopped = false;
      try {
        this.warm();
        if (!python.isReady) {
          this.loading = cell;
          cell.setState("loading", python.progress);
          await python.ready;
          if (this.left) throw new Stopped();
        }
        if (this.worker !== python.worker) this.open();
        const codes = this.codes();
        await new Promise((resolve, reject) => {
          this.waiting = { resolve, reject };
          python.post({ kind: "run", target, codes: JSON.stringify(codes), all });
        });
      } catch (error) {
        stopped = error instanceof Stopped;
        if (!stopped) {
          cell.fail(String(error.message || error));
          cell.setState("broken", "Python could not run");
        }
      } finally {
        this.target = this.waiting = this.loading = this.running = null;
        this.busy(false);
        this.all = false;
        if (!this.left) {
          this.toolsStatus.textContent = stopped && all ? "Run all: stopped" : "";
          this.announce(cell, all);
          document.body.dataset.notebook = "idle";
        }
      }
    }

    // Say how the Run ended, and what the fence printed, to a screen reader.
    announce(cell, all) {
      const printed = cell.printed?.textContent.trim() ?? "";
      const failure = cell.failure?.textContent.trim().split("\n").pop() ?? "";
      let said = `${all ? "Run all, last fence" : "Fence"} at ${cell.where}: ${cell.status?.textContent}.`;
      if (printed) said += ` It printed: ${printed.length > 400 ? printed.slice(0, 400) + "…" : printed}`;
      if (failure) said += ` ${failure}`;
      this.announcer.textContent = said;
    }

    // Reset all: the book's code in every fence, and none of the chapter's edits kept, once
    // the reader agrees (as learner mode's Reset asks).
    resetAll() {
      const edited = this.cells.filter((cell) => cell.kept !== null).length;
      const ask = `Put back the book's code in every fence? What you typed in ${edited} of them is lost.`;
      if (edited && !confirm(ask)) return;
      for (const cell of this.cells) if (cell.bar && !cell.fence.blocked) cell.reset();
      this.edits = {};
      kept.write(this.chapter, this.edits);
    }

    // The reader's edits, by fence index: what this page marks "edited" is what Python
    // runs as the reader's code (tools/page/run.py compares it with nothing).
    codes() {
      const codes = {};
      for (const c of this.cells) if (c.kept !== null) codes[c.index] = c.text;
      return codes;
    }

    // A fresh namespace for the chapter, in the worker there is.
    open() {
      this.worker = python.worker;
      python.post({ kind: "open", page: JSON.stringify(this.page) });
      this.cells.forEach((c) => c.clear());
    }

    busy(running) {
      this.cells.forEach((c) => c.busy(running));
      for (const button of this.tools.querySelectorAll("button")) button.disabled = running;
      this.stopAll.disabled = false;
      this.stopAll.hidden = !(running && this.all);
    }

    // Restart: the next Run starts from a fresh namespace; what ran is cleared now, and the
    // figures drawn again from the reader's code give way to the book's.
    restart() {
      if (this.target !== null) return;
      this.cells.forEach((c) => c.clear());
      this.figures.forEach((f) => f.restore());
      this.worker = null;
    }

    // Python tells how far its start has come ("loading Python 2/3: … 4.2 of 13.0 MB").
    progress(text) {
      if (this.loading) this.loading.setState("loading", text);
      if (this.loading && this.all) this.toolsStatus.textContent = `Run all: ${text}`;
    }

    // Stop: the fence that runs says so; the one that was waiting for it waits no more.
    stop() {
      if (this.target === null) return;
      (this.running ?? this.cells[this.target]).setState("stopped", "stopped: the next Run starts Python afresh");
      for (const cell of this.cells) if (cell.bar?.dataset.state === "waiting") cell.setState("idle", "");
      if (this.waiting) this.waiting.reject(new Stopped());
      python.stop();
    }
  }

  let current = null; // the Notebook of the page shown

  // On every page Material shows (the first, and each one instant navigation swaps in).
  function setup() {
    if (current) current.leave();
    current = null;
    const said = notice;
    notice = null;
    if (said) tell(said);
    const data = document.getElementById("notebook-fences");
    const editor = document.getElementById("code-editor");
    if (!data || !editor) return; // no runtime in this build, or no python fences on this page
    const page = { ...bookPage.data(data), editor: bookPage.data(editor) };
    const blocks = [...document.querySelectorAll("article div.language-python.highlight")];
    const shown = page.fences;
    const mismatch = shown.findIndex(
      (fence, i) =>
        !blocks[i] || blocks[i].querySelector("pre > code").textContent.trimEnd() !== fence.code.trimEnd(),
    );
    if (blocks.length !== shown.length || mismatch >= 0) {
      console.error(
        `notebook: ${page.chapter} has ${shown.length} python fences, the page shows ` +
          `${blocks.length} python code blocks (first difference: fence ${mismatch}); ` +
          "no Run buttons on this page",
      );
      return;
    }
    current = new Notebook(page, blocks);
    if (said) python.warm(); // the reader was running code: Python is wanted again
  }

  // A notice at the top of the page shown (leaving a page stopped its fence).
  function tell(text) {
    const heading = document.querySelector("article h1");
    if (!heading) return;
    const note = element("p", "notebook-notice", text);
    note.setAttribute("role", "status");
    heading.after(note);
  }

  // For learner mode (docs/assets/learner/learner.js) and the lab (docs/assets/lab/lab.js):
  // the lab reads the page's fences as edited; learner mode loads the same editor, when
  // the reader reaches for it as for a fence.
  window.bookEditor = { load: (where) => editorScript.load(where), onReach };
  python.page = () => (current ? { data: current.page, codes: current.codes() } : null);

  bookPage.onPage(setup); // docs/assets/page/page.js
})();
