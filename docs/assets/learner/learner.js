// Learner mode in the page: an editor holding the learner's engine, and Check, which runs
// the book's checks against it in the page's Python, chapter by chapter, with the table
// that `python3 tools/dev.py learn` prints (tools/learner.py, run by tools/learn/in_page.py
// in the Pyodide worker of the Run buttons, docs/assets/notebook/worker.js: the same
// worker, window.bookPython, not a second Python).
//
// The page carries what it needs as JSON (a hidden element, .learner-data, written while
// the site is built; read with bookPage.data, docs/assets/page/page.js): the skeleton, the chapters with checks, and where each chapter and
// section is on the site, for the table's links. What the learner types is kept in
// localStorage as it is typed, and so is the last table: both survive a reload and a
// rebuilt site, and so are the best scores (tools/learn/best.py: Python merges them, this
// keeps them). Hint shows the next of the hints Python wrote for the function to fix, one
// more each press, the one Python said comes next. Nothing is sent anywhere; Download and Load are the browser's own.
//
// A chapter that runs longer than the stated time limit (data-limit, in seconds) is
// stopped by ending the worker; the table says so, and the next chapter gets a fresh one
// (and the page's Run buttons too: their next Run opens the chapter in it). A Check asked
// while a fence runs waits for it; a fence's Stop ends the check's chapter too.

(function () {
  "use strict";

  // With instant navigation, Material runs this script again each time the chapter is
  // swapped in: the first run does the work on every page (setup, below).
  if (window.bookLearner) return;
  window.bookLearner = true;
  const STORED = "literate-micrograd:learner:engine"; // the engine, as typed
  const TABLE = "literate-micrograd:learner:table"; // {table, rows, engine, chapter, fix, hints, next} of the last Check
  const RECORD = "literate-micrograd:learner:record"; // best scores and hints given (tools/learn/best.py)
  const TABLE_LIMIT = 120; // seconds to make the table and find what to read next

  // docs/assets/page/page.js, which may load after this script (it sits in the content)
  const element = (...args) => bookPage.element(...args);

  const button = (...args) => bookPage.button(...args);

  // The line of an error that says what went wrong (a Python traceback's last one), without
  // its full stop: a sentence that quotes it ends in its own.
  function gist(error) {
    const lines = String(error).trim().split("\n").filter((line) => line.trim() && !/^\s+at /.test(line));
    return (lines[0].startsWith("PythonError") ? lines[lines.length - 1] : lines[0]).replace(/\.+$/, "");
  }

  function load(key) {
    try {
      return localStorage.getItem(key);
    } catch (error) {
      return null; // storage refused (a private window's settings): nothing kept
    }
  }

  function keep(key, value) {
    try {
      localStorage.setItem(key, value);
      return true;
    } catch (error) {
      return false;
    }
  }

  // The page's Python, shared with the Run buttons (window.bookPython, from
  // docs/assets/notebook/notebook.js, which loads after this script on the first page):
  // one worker per tab. The book's zip is loaded into it on the first Check, and again in
  // the next worker if this one ends; a chapter that outlasts the limit ends it.
  let loadedInto = null; // the worker the book's zip was loaded into

  function shared() {
    if (!window.bookPython) throw new Error("the page's Python is missing (assets/notebook/notebook.js)");
    return window.bookPython;
  }

  class Python {
    constructor(bundle) {
      this.bundle = bundle;
      this.waiting = null; // {resolve, onEvent, limit, timer} of the message being answered
      this.left = false; // another page is shown
      this.worker = null; // the worker its last message went to
    }

    get starting() {
      return !window.bookPython?.worker;
    }

    warm() {
      shared().warm();
    }

    receive(message) {
      if (!this.waiting) return;
      if (message.kind === "learn-event") {
        if (this.waiting.onEvent) this.waiting.onEvent(message.event);
      } else if (message.kind === "learn-start" && this.waiting.limit) {
        // The time limit counts from here: the message may have waited behind a fence.
        const answer = () => this.answer({ timeout: true });
        this.waiting.timer = setTimeout(answer, this.waiting.limit * 1000);
      } else if (message.kind === "learned") this.answer({});
      else if (message.kind === "learn-table") this.answer({ table: message.table });
    }

    // The worker ended (it broke, or a fence's Stop ended it): it will not answer.
    broken(error) {
      this.answer({ broken: error });
    }

    answer(answer) {
      const waiting = this.waiting;
      if (!waiting) return;
      this.waiting = null;
      clearTimeout(waiting.timer);
      if (answer.timeout) this.end("a check in learner mode ran out of time");
      waiting.resolve(answer);
    }

    // End the worker this asked, unless it has ended already (and another has started).
    end(why) {
      const python = window.bookPython;
      if (python && python.worker && python.worker === this.worker) python.end(why);
    }

    // Another page is shown: a check still running ends the worker, as a fence's Run does,
    // and is answered so (the check then stops at its next step).
    leave() {
      this.left = true;
      if (this.waiting) {
        const why = "the page was left during a check";
        this.end(why);
        this.answer({ broken: why });
      }
      if (window.bookPython?.learner === this) window.bookPython.learner = null;
    }

    // Send a message; the answer is {} or {table}, {broken: error}, or {timeout: true}
    // after `limit` seconds of running (the worker is then ended).
    ask(message, limit, onEvent) {
      return new Promise((resolve) => {
        this.waiting = { resolve, onEvent, limit, timer: null };
        this.worker = shared().worker;
        shared().post(message);
      });
    }

    async call(message, limit, onEvent) {
      if (this.left) throw new Error("the page was left");
      const python = shared();
      python.learner = this;
      python.warm();
      try {
        await python.ready;
      } catch (error) {
        throw new Error(`the page's Python could not start: ${gist(error.why || error.message || error)}`);
      }
      if (this.left) throw new Error("the page was left");
      if (loadedInto !== python.worker) {
        const worker = python.worker;
        const loaded = await this.ask({ kind: "learn-load", bundle: this.bundle });
        if (loaded.broken) throw new Error(`the page's Python could not start: ${gist(loaded.broken)}`);
        loadedInto = worker;
      }
      return this.ask(message, limit, onEvent);
    }
  }

  class Learner {
    constructor(root) {
      this.root = root;
      this.data = bookPage.data(root.querySelector(".learner-data"));
      this.python = new Python(new URL(root.dataset.bundle, location.href).href);
      this.build();
    }

    build() {
      const { root, data } = this;
      root.querySelector(":scope > p").remove(); // the placeholder, for readers elsewhere
      const said = "Your engine: the skeleton, until you write it. Check runs the book's checks against it here, ";
      const intro = element("p", "learner-intro", `${said}in your browser; each chapter may run ${root.dataset.limit} s.`);
      this.bar = element("div", "learner-bar");
      this.checkButton = button("learner-check", "✓ Check", "Run the book's checks against your engine");
      this.chapter = element("select", "learner-chapter");
      this.chapter.setAttribute("aria-label", "Which chapters to check");
      this.chapter.append(new Option("every chapter", ""));
      for (const { name, title, offered } of data.chapters) if (offered) this.chapter.append(new Option(title, name));
      this.downloadButton = button("learner-download", "⤓ Download", `Save your engine as ${data.engine}`);
      this.loadButton = button("learner-load", "Load a file…", "Put a micrograd.py from your machine in the editor");
      const picker = { type: "file", accept: ".py,text/x-python,text/plain", hidden: true };
      this.file = Object.assign(element("input", "learner-file"), picker);
      this.resetButton = button("learner-reset", "↺ Reset", "Start again from the skeleton (asks first)");
      this.hintButton = button("learner-hint", "? Hint", "A hint about the function to fix: each time one more");
      const { checkButton, chapter, hintButton, downloadButton, loadButton, file, resetButton } = this;
      this.bar.append(checkButton, chapter, hintButton, downloadButton, loadButton, file, resetButton);
      this.status = element("p", "learner-status");
      this.status.setAttribute("role", "status");
      const host = element("div", "learner-editor");
      this.caption = element("p", "learner-caption");
      this.rows = element("div", "learner-rows"); // in a narrow column, it scrolls (page.js)
      this.table = element("pre", "learner-table");
      this.hint = element("pre", "learner-hint-text");
      this.hint.setAttribute("aria-live", "polite");
      this.table.hidden = this.caption.hidden = this.rows.hidden = this.hint.hidden = true;
      root.append(intro, this.bar, this.status, host, this.caption, this.rows, this.table, this.hint);

      // The engine shows as text until the reader reaches for it as for a fence, or at once
      // if the reader typed it: then it is in the editor, loaded then (as notebook.js does).
      const stored = load(STORED);
      this.code = stored === null ? data.skeleton : stored;
      this.shown = element("pre", "learner-code");
      const code = element("code", "", this.code); // it scrolls: a tab stop, named
      Object.assign(code, { tabIndex: 0, role: "region", ariaLabel: `Your ${data.engine}: focus it to edit it` });
      this.shown.append(code);
      this.editor = null;
      host.append(this.shown);
      // Every listener goes when the page is left (setup, below).
      this.leaving = new AbortController();
      const page = { signal: this.leaving.signal };
      const where = bookPage.data(document.getElementById("code-editor"));
      const reach = (clicked) => this.makeEditor(host, where, clicked);
      bookEditor.onReach(this.bar, this.shown, reach, page);
      if (stored !== null) reach(false);
      this.checkButton.addEventListener("click", () => this.check(), page);
      // Python takes seconds to start: on the first sign that a Check is coming, start it.
      const warm = () => this.python.warm();
      for (const event of ["pointerenter", "focus"]) {
        this.checkButton.addEventListener(event, warm, page);
        this.chapter.addEventListener(event, warm, page);
      }
      this.downloadButton.addEventListener("click", () => this.download(), page);
      this.loadButton.addEventListener("click", () => this.file.click(), page);
      this.file.addEventListener("change", () => this.loadFile(), page);
      this.resetButton.addEventListener("click", () => this.reset(), page);
      this.hintButton.addEventListener("click", () => this.giveHint(), page);
      const last = JSON.parse(load(TABLE) || "null");
      if (last) this.show(last.table, this.lastCaption(last), last.rows);
      this.hints = last && last.hints && last.next ? { fix: last.fix, texts: last.hints, next: last.next } : null;
      this.hintButton.disabled = !this.hints || !this.hints.texts.length;
      root.dataset.state = "idle";
    }

    makeEditor(host, where, clicked) {
      if (this.editorWanted) return;
      this.editorWanted = true;
      bookEditor.load(where).then(() => {
        if (!this.root.isConnected) return; // the page was left
        const focused = clicked || this.shown.contains(document.activeElement);
        this.editor = CodeEditor.create(host, {
          doc: this.code,
          label: `Your ${this.data.engine} (editable)`,
          numbered: true,
          onChange: (text) => this.typed(text),
        });
        this.shown.remove();
        if (focused) this.editor.focus();
      }, (error) => console.error(`learner: ${error.message}: the engine cannot be edited`));
    }

    get text() {
      return this.editor ? CodeEditor.text(this.editor) : this.code;
    }

    set text(text) {
      if (this.editor) CodeEditor.setText(this.editor, text);
      else this.typed((this.code = this.shown.firstChild.textContent = text));
    }

    typed(text) {
      if (!keep(STORED, text)) {
        this.say("Your browser does not let this page keep your engine: Download it to keep it.");
      }
    }

    say(text) {
      this.status.textContent = text;
    }

    lastCaption(last) {
      const which = last.chapter ? `chapter ${last.chapter}` : "every chapter";
      const same =
        last.engine === this.text ? "your engine as it is now" : "an earlier version of your engine";
      return `Your last Check (${which}), of ${same}:`;
    }

    // The table as Python made it (tools/learn/table.py's page_table): its rows if a check ran,
    // the text below, each in parts (in_page.py's linked). (A table kept earlier: text alone.)
    show(table, caption, rows) {
      this.caption.textContent = caption;
      this.rows.replaceChildren(...(rows ? [this.tabled(rows)] : []));
      this.linked(this.table, typeof table === "string" ? [[table, null, null]] : table);
      [this.table.hidden, this.caption.hidden, this.rows.hidden] = [false, false, !rows];
      bookPage.scrollers();
    }

    // The header row's cells and each row's first are headers (th), with their scope.
    tabled({ caption, head, body, foot }) {
      const table = element("table");
      table.createCaption().textContent = caption;
      const add = (part, row, scope = "row") => {
        const tr = part.insertRow();
        ["chapter", "score", "failing"].forEach((key, k) => {
          const cell = tr.appendChild(element(k && scope === "row" ? "td" : "th"));
          if (cell.tagName === "TH") cell.scope = scope;
          this.linked(cell, row[key]);
        });
      };
      add(table.createTHead(), head, "col");
      const tbody = table.createTBody();
      for (const row of body) add(tbody, row);
      add(table.createTFoot(), foot);
      return table;
    }

    linked(into, parts) {
      into.replaceChildren(
        ...parts.map(([text, chapter, section]) => {
          const place = chapter === null ? undefined : this.data.places[chapter];
          if (place === undefined) return text;
          const link = element("a", "", text);
          link.href = section ? place.sections[section] : place.url;
          return link;
        }),
      );
    }

    // The next hint about the function to fix, as Python wrote them all and said which comes
    // after how many (tools/learn/in_page.py): how many were shown is kept with the best
    // scores, as the terminal keeps it.
    giveHint() {
      if (!this.hints || !this.hints.texts.length) return;
      const record = JSON.parse(load(RECORD) || "null") || {};
      record.hints = record.hints || {};
      const { fix, texts, next } = this.hints;
      const given = next[Math.min(record.hints[fix] || 0, next.length - 1)];
      record.hints[fix] = given;
      keep(RECORD, JSON.stringify(record));
      this.linked(this.hint, texts[given - 1]);
      this.hint.hidden = false;
    }

    busy(running) {
      this.root.dataset.state = running ? "checking" : "idle";
      for (const b of [this.checkButton, this.chapter, this.hintButton, this.loadButton, this.resetButton]) b.disabled = running;
    }

    async check() {
      const engine = this.text;
      const limit = Number(this.root.dataset.limit);
      const wanted = this.chapter.value;
      const chosen = this.data.chapters.filter((c) => !wanted || c.name === wanted);
      const which = wanted ? chosen[0].title : "every chapter";
      const caption = `The book's checks against your engine (${which}):`;
      this.busy(true);
      const runs = [];
      let [table, rows] = [null, null];
      let problem = "";
      try {
        for (const [i, chapter] of chosen.entries()) {
          const starting = this.python.starting ? " Starting Python first." : "";
          this.say(`Checking ${chapter.title} (${i + 1} of ${chosen.length})…${starting}`);
          const run = { chapter: chapter.name, events: [], stopped: null };
          runs.push(run);
          const learn = { kind: "learn", chapter: chapter.name, engine };
          const answer = await this.python.call(learn, limit, (event) => run.events.push(event));
          if (answer.timeout) {
            run.stopped =
              `timed out after ${limit} s: the chapter did not finish (the page stops a chapter ` +
              `after ${limit} s, and its Python with it; in a terminal, learn --timeout gives it longer)`;
          } else if (answer.broken) {
            run.stopped = `the page's Python stopped: ${gist(answer.broken)}`;
          }
          const last = i + 1 === chosen.length;
          if (last) this.say("Finding what to read next…");
          const tableLimit = Math.max(limit, TABLE_LIMIT); // the limit is the chapters'
          const record = JSON.parse(load(RECORD) || "null");
          const ask = { kind: "learn-table", runs, engine, diagnose: last, record };
          const shown = await this.python.call(ask, tableLimit);
          if (shown.table === undefined) {
            const why = shown.timeout ? `it took over ${tableLimit} s` : gist(shown.broken);
            if (table === null || !last) throw new Error(`the table could not be made: ${why}`);
            problem = ` What to read next could not be found: ${why}.`;
          } else {
            ({ table, rows } = shown.table);
            if (last) {
              keep(RECORD, JSON.stringify(shown.table.record));
              this.hints = { fix: shown.table.fix, texts: shown.table.hints, next: shown.table.next };
            }
          }
          this.show(table, caption, rows);
        }
        this.hint.hidden = true;
        this.say(`Checked ${which}.${problem}`);
        const { fix, texts: hints, next } = this.hints || { fix: "", texts: [], next: [] };
        keep(TABLE, JSON.stringify({ table, rows, engine, chapter: wanted ? which : "", fix, hints, next }));
        this.caption.textContent = caption;
      } catch (error) {
        this.say(`The check could not finish: ${gist(error.message || error)}. Check again to start afresh.`);
        this.python.end("learner mode's check could not finish");
      } finally {
        this.busy(false);
        this.hintButton.disabled = !this.hints || !this.hints.texts.length;
        this.root.dataset.checked = String(Number(this.root.dataset.checked || 0) + 1); // Checks done
      }
    }

    download() {
      const blob = new Blob([this.text], { type: "text/x-python" });
      const link = element("a");
      link.href = URL.createObjectURL(blob);
      link.download = this.data.engine;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 1000);
    }

    async loadFile() {
      const [file] = this.file.files;
      this.file.value = "";
      if (!file) return;
      const text = await file.text();
      const ask =
        `Replace the engine in the editor with ${file.name}? ` +
        "What the editor holds now is lost, unless you downloaded it.";
      if (this.text !== this.data.skeleton && this.text !== text && !confirm(ask)) return;
      this.text = text;
      this.say(`Loaded ${file.name}.`);
    }

    reset() {
      if (this.text === this.data.skeleton) return;
      const ask = "Discard your engine and start again from the skeleton? Download it first to keep it.";
      if (!confirm(ask)) return;
      this.text = this.data.skeleton;
      this.say("The editor holds the skeleton again.");
    }
  }

  let current = null; // the Learner of the page shown

  // On every page Material shows: a Learner left behind lets go of the page's Python (a
  // check still running ends it), and its editor (with the listeners it set on the window)
  // goes.
  function setup() {
    if (current && !current.root.isConnected) {
      current.python.leave();
      current.editor?.destroy();
      current.leaving.abort();
      current = null;
    }
    const root = document.querySelector(".learner");
    if (!root || root.dataset.state || !window.bookEditor) return;
    current = new Learner(root);
  }

  // docs/assets/page/page.js comes after the page's content: on the first page, wait for it.
  if (window.bookPage) bookPage.onPage(setup);
  else document.addEventListener("DOMContentLoaded", () => bookPage.onPage(setup));
})();
