// A chapter page's fences and graph figures as notebook.js shows them (window.bookCells):
// a Cell shows what tools/page/run.py tells of its fence (what it printed and how it failed,
// under it; under an ```output block, the same output only marks the block, other output
// takes its place, the book's folded beside it); a LiveFigure, a figure drawn again from
// the reader's code until the book's code runs again.

(function () {
  "use strict";

  const { element, withCode, button } = bookPage; // docs/assets/page/page.js

  // One python fence of the chapter; `block` is its code block on the page, if shown.
  class Cell {
    constructor(notebook, fence, index, block, name) {
      this.notebook = notebook;
      this.fence = fence;
      this.index = index;
      this.block = block;
      this.name = name; // kept by edits elsewhere in the chapter: the key of its kept edit
      this.kept = notebook.edits[name] ?? null; // the reader's edit, from an earlier visit
      this.same = false; // what it printed last is the book's output
      if (block) this.decorate();
    }

    get where() {
      return `line ${this.fence.line - 1}`; // the opening ``` line, as pytest reports it
    }

    decorate() {
      const { fence, block } = this;
      this.bar = element("div", "notebook-bar");
      this.bar.dataset.line = fence.line; // the fence's first line of code in the chapter
      block.after(this.bar);
      if (fence.blocked) {
        this.bar.classList.add("notebook-blocked");
        this.bar.append(
          withCode(
            "notebook-note",
            `Not run on this page: ${fence.blocked}. ` +
              `Run it with \`python3 tools/dev.py test ${this.notebook.chapter}\`.`,
          ),
        );
        return;
      }
      this.editor = null; // made once the reader reaches for the page's fences (makeEditor)

      this.runButton = button(
        "notebook-run",
        "▶ Run",
        "Run this fence, after the fences above it that have not run; alone if it has run (Shift+Enter)",
      );
      this.stopButton = button("notebook-stop", "■ Stop", "Stop Python (the next Run starts afresh)");
      this.resetButton = button("notebook-reset", "↺ Reset", "Put back the book's code");
      this.status = element("span", "notebook-status"); // announced when the Run ends
      this.editedMark = element("span", "notebook-edited", "edited");
      this.editedMark.title = "Your code, kept in this browser; Reset puts back the book's";
      this.stopButton.hidden = true;
      const page = this.notebook.listening; // its listeners go when the page is left
      this.runButton.addEventListener("click", () => this.notebook.run(this.index), page);
      this.stopButton.addEventListener("click", () => this.notebook.stop(), page);
      this.resetButton.addEventListener("click", () => this.reset(), page);
      this.bar.append(this.runButton, this.stopButton, this.editedMark, this.resetButton, this.status);
      this.markEdited(this.kept !== null);

      // What it printed, and how it failed: in place of its ```output block if it has one.
      this.result = element("div", "notebook-result");
      this.result.hidden = true;
      this.caption = element("div", "notebook-caption");
      this.printed = element("pre", "notebook-printed");
      this.failure = element("pre", "notebook-failure");
      this.graphs = element("div", "notebook-graphs");
      this.result.append(this.caption, this.printed, this.graphs, this.failure);
      const next = block.nextElementSibling === this.bar ? this.bar.nextElementSibling : null;
      this.book = next && next.matches("div.language-output") ? next : null;
      if (this.book) {
        // The book's output, to compare with when a run prints something else.
        this.bookCopy = element("details", "notebook-book");
        this.bookCopy.append(element("summary", "", "The book's output"));
        this.bookCopy.append(element("pre", "", this.bookText));
        this.result.append(this.bookCopy);
      }
      (this.book || this.bar).after(this.result);
      this.setState("idle", "");
    }

    // The book's highlighted code stays in the page (for printing); an editor shows it.
    makeEditor() {
      const host = element("div", "notebook-editor");
      this.block.querySelector("pre").after(host);
      this.block.classList.add("notebook-editable");
      // While the editor has the focus: how to leave it, and what Tab does (in the Run bar).
      const hint = element("span", "notebook-hint", "Tab moves on · Shift+Enter runs · Esc goes to Run");
      this.bar.append(hint);
      this.editor = CodeEditor.create(host, {
        doc: (this.kept ?? this.fence.code).replace(/\n$/, ""),
        label:
          `Python code, ${this.where} (editable: Shift+Enter or Ctrl+Enter runs it; ` +
          "Tab indents once you have typed here, Esc leaves)",
        onChange: () => this.edited(),
        onRun: () => this.notebook.run(this.index),
        onTyped: () => (hint.textContent = "Tab indents now · Esc leaves the editor · Shift+Enter runs"),
      });
      // Ctrl+Enter (⌘+Enter) runs too; Esc leaves the editor for its Run button, so that a
      // keyboard is never trapped in it.
      host.addEventListener(
        "keydown",
        (event) => {
          if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) this.notebook.run(this.index);
          else if (event.key === "Escape") this.runButton.focus();
          else return;
          event.preventDefault();
          event.stopPropagation();
        },
        { capture: true, ...this.notebook.listening },
      );
    }

    get text() {
      return this.editor ? CodeEditor.text(this.editor) + "\n" : (this.kept ?? this.fence.code);
    }

    // The reader changed the code: kept in the browser, or forgotten if it is the book's.
    edited() {
      const text = this.text;
      this.kept = text.trimEnd() === this.fence.code.trimEnd() ? null : text;
      this.notebook.keep(this);
      this.markEdited(this.kept !== null);
    }

    markEdited(edited) {
      this.resetButton.hidden = this.editedMark.hidden = !edited;
      this.bar.dataset.edited = edited ? "yes" : "no";
    }

    reset() {
      if (this.editor) CodeEditor.setText(this.editor, this.fence.code.replace(/\n$/, ""));
      else if (this.kept !== null) {
        this.kept = null;
        this.notebook.keep(this);
        this.markEdited(false);
      }
    }

    setState(state, status) {
      if (!this.bar || this.fence.blocked) return;
      this.bar.dataset.state = state;
      this.status.textContent = status;
    }

    get bookText() {
      return this.book ? this.book.querySelector("code").textContent : null;
    }

    clear() {
      if (!this.result) return;
      this.result.hidden = true;
      this.printed.textContent = this.failure.textContent = this.caption.textContent = "";
      this.same = false;
      this.graphs.replaceChildren();
      if (this.book) {
        this.book.hidden = false;
        delete this.book.dataset.run;
        this.bookCopy.hidden = true;
      }
      this.setState("idle", "");
    }

    // Output once. Under an ```output block, a run that printed the same shows no second
    // copy: the book's block is marked "ran: same as the book". One that printed something
    // else shows its output in the block's place, with the book's folded under it.
    show() {
      const printed = this.printed.textContent;
      const failed = this.failure.textContent !== "";
      const same = this.book !== null && this.same;
      if (this.book) {
        this.book.hidden = !same && (printed !== "" || failed);
        if (same && !failed) this.book.dataset.run = "same";
        else delete this.book.dataset.run;
        this.bookCopy.hidden = !this.book.hidden;
      }
      this.printed.hidden = printed === "" || same;
      this.failure.hidden = !failed;
      this.result.hidden = this.printed.hidden && !failed && !this.graphs.childElementCount;
      let caption = this.printed.hidden ? "" : "output of this run";
      if (!this.printed.hidden && this.book) caption += ", not the book's (folded below)";
      this.caption.textContent = caption;
    }

    print(text) {
      this.printed.textContent += text;
      this.show();
    }

    // The graphs it printed, drawn: [{svg, problem}] from worker.js.
    drew(drawn) {
      this.graphs.replaceChildren(
        ...drawn.map(({ svg, problem }) => {
          if (svg === null) return element("p", "notebook-graph-problem", problem);
          const figure = element("div", "notebook-graph");
          figure.innerHTML = svg;
          const picture = figure.firstElementChild;
          picture.setAttribute("role", "img");
          picture.setAttribute("aria-label", "The graph this fence printed, drawn by Graphviz");
          return figure;
        }),
      );
      this.show();
    }

    fail(report) {
      this.failure.textContent = report;
      this.show();
      const details = this.block.closest("details");
      if (details) details.open = true;
    }

    busy(running) {
      if (!this.runButton) return;
      this.runButton.disabled = running;
      if (!running) this.stopButton.hidden = true;
    }

    // This fence runs now: it says so, and Stop is on it.
    running(status) {
      if (!this.runButton) return;
      this.clear();
      this.setState("running", status);
      this.stopButton.hidden = false;
    }

    // How its run ended, as tools/page/run.py tells it.
    done({ state, status, report, same }) {
      if (!this.runButton) return;
      this.stopButton.hidden = true;
      this.same = same;
      if (report !== null) this.fail(report);
      else this.show();
      this.setState(state, status);
    }
  }

  // A graph figure of the chapter, as the page shows it: the book's, or drawn again.
  class LiveFigure {
    constructor({ name, line }) {
      this.name = name;
      this.line = line; // the chapter line that shows it
      this.book = null; // [the book's <svg>, its step data] once it has been replaced
    }

    get svg() {
      return document.getElementById(`${this.name}-graph0`)?.closest("svg") ?? null;
    }

    note(text, problem) {
      const svg = this.svg;
      const figure = svg.closest(".steps") ?? (svg.parentElement.matches("p") ? svg.parentElement : svg);
      let note = figure.querySelector(".notebook-figure-note") ?? figure.nextElementSibling;
      if (!note || !note.matches(".notebook-figure-note")) {
        note = element("p", "notebook-figure-note");
        note.setAttribute("role", "status");
        if (figure.matches(".steps")) figure.querySelector(".steps-bar").before(note);
        else figure.after(note);
      }
      note.hidden = text === "";
      note.classList.toggle("notebook-figure-problem", Boolean(problem));
      note.textContent = text;
    }

    show(svg, steps) {
      const old = this.svg;
      if (window.bookSteps?.has(this.name)) window.bookSteps.redraw(this.name, svg, steps);
      else old.replaceWith(svg);
      // The book's drawing for a phone (book.css) stays away while the reader's is shown.
      const narrow = svg.parentElement.querySelector(":scope > svg.picture-narrow");
      narrow?.toggleAttribute("hidden", svg.dataset.live === "yes"); // an SVG element: no .hidden
    }

    drawn({ svg, steps, problem }) {
      const current = this.svg;
      if (!current) return;
      if (svg === null) {
        this.note(`Not drawn again from your code: ${problem}`, true);
        return;
      }
      const holder = element("div");
      holder.innerHTML = svg;
      const picture = holder.firstElementChild;
      if (this.book === null) this.book = [current, window.bookSteps?.data(this.name) ?? null];
      picture.setAttribute("role", "img");
      picture.setAttribute("aria-label", "The figure drawn again from the code you ran on this page");
      picture.dataset.live = "yes";
      this.show(picture, steps);
      this.note("Drawn again from the code you ran on this page; run the book's code to see the book's figure.", false);
    }

    restore() {
      if (this.book === null || !this.svg) return;
      const [svg, steps] = this.book;
      this.book = null;
      this.show(svg, steps);
      this.note("", false);
    }
  }

  window.bookCells = { Cell, LiveFigure };
})();
