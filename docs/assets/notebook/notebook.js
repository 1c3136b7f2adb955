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
// pytest. This script asks it to run and shows what it tells: what a fence prints and
// how it failed appear under it; under an ```output block, output the same as the book's
// only marks the block, other output takes its place (the book's folded beside it). A
// graph figure drawn again from the reader's code replaces the book's until the book's
// code runs again; a graph a fence prints is drawn under what it printed.
//
// Python runs in a Web Worker (worker.js) that is created when the reader first reaches
// for a fence's controls (the pointer over a Run bar, or focus on it or in a fence's
// editor), so that it is loading while the reader clicks, and nothing is loaded for a
// reader who only reads. One worker serves the whole visit: with Material's instant
// navigation this script stays loaded from chapter to chapter, and each chapter's first
// Run asks the worker for a fresh namespace (the Python already loaded). Each page Material
// shows gets its own Notebook (setup, on Material's document$); the last page's one is
// left: its editors destroyed, and a Run still going stopped. While a Run goes, the fence
// that runs says so ("running fence 2 of 5") and carries the Stop button. Stop terminates
// the worker; the next Run starts a fresh one and runs the fences above again. Without
// the fence data (a site built without the runtime) this script does nothing.
//
// How Python starts (python.start): served, from the site's files; opened from disk, from
// their classic-script copies (fromDisk), in a worker started from a data: URL. A start
// made once is kept in the browser (snapshots) and restored by the next ones, unless it is
// another build's or too large (python.unusable). While it starts, the fence that waits
// shows the phase the worker names, in the words of the page data #python-start
// (tools/site/runtime.py), and its seconds once it has lasted one.
//
// Learner mode (docs/assets/learner/learner.js, on the chapter "Rebuild it yourself")
// checks in this same worker: one Python per tab. It reaches it as window.bookPython
// (warm, ready, post, end, and a second listener slot, `learner`, which gets the messages
// whose kind starts with "learn"; "broken", and a Stop, reach both listeners). Its
// messages wait in the worker behind a fence that runs; when it ends the worker (a chapter
// over its time limit), the notebook sees a new worker at its next Run and opens the
// chapter again there.

(function () {
  "use strict";

  const here = new URL(".", document.currentScript.src);
  const { element, withCode } = bookPage; // docs/assets/page/page.js

  function button(className, label, title) {
    const node = element("button", "notebook-button " + className, label);
    node.type = "button";
    node.title = title;
    return node;
  }

  class Stopped extends Error {
    constructor() {
      super("stopped by a fence's Stop button");
    }
  }

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

  // The load of one of the code editor's files (its <script> or <link>), as a promise.
  const loaded = (node) =>
    new Promise((resolve, reject) => {
      node.addEventListener("load", () => resolve(), { once: true });
      const what = node.src || node.href;
      node.addEventListener("error", () => reject(new Error(`the code editor (${what}) did not load`)), { once: true });
    });

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

  // A megabyte count as the status line shows it.
  const megabytes = (bytes) => (bytes / 1e6).toFixed(1);

  // What the next page says when leaving one stopped a fence that ran (set by leave()).
  let notice = null;

  // A start of Python made once is kept in this browser (worker.js: a memory snapshot), in
  // IndexedDB, and handed to the next start. Storage may be refused or full, or missing:
  // then nothing is kept, and Python starts the plain way, with no error.
  const snapshots = {
    store: "python",
    open() {
      return new Promise((resolve, reject) => {
        const request = indexedDB.open("literate-micrograd", 1);
        request.onupgradeneeded = () => request.result.createObjectStore(this.store);
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
    },
    async ask(mode, work) {
      const db = await this.open();
      try {
        return await new Promise((resolve, reject) => {
          const request = work(db.transaction(this.store, mode).objectStore(this.store));
          request.onsuccess = () => resolve(request.result);
          request.onerror = () => reject(request.error);
        });
      } finally {
        db.close();
      }
    },
    async read() {
      try {
        const kept = await this.ask("readonly", (store) => store.get("snapshot"));
        return kept && kept.bytes instanceof ArrayBuffer ? kept : null;
      } catch {
        return null;
      }
    },
    async write(key, bytes) {
      try {
        await this.ask("readwrite", (store) => store.put({ key, bytes: bytes.buffer }, "snapshot"));
      } catch {
        // not kept: see above
      }
    },
    drop() {
      return this.ask("readwrite", (store) => store.delete("snapshot")).catch(() => {});
    },
  };

  // Opened from disk, the files Python needs come from their classic-script copies in
  // assets/disk/ (tools/site/runtime.py writes them: base64 in self.bookDisk), loaded once
  // a visit. Each is decoded afresh for each start (the worker takes the bytes).
  function diskScript(script) {
    return new Promise((resolve, reject) => {
      const node = element("script");
      node.src = new URL(`../../${script}`, here).href;
      node.addEventListener("load", () => resolve(), { once: true });
      node.addEventListener("error", () => reject(new Error(`${script} did not load`)), { once: true });
      document.head.append(node);
    });
  }

  const decoded = (text) =>
    Uint8Array.fromBase64 ? Uint8Array.fromBase64(text) : Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

  async function fromDisk(start, phase) {
    const files = start.disk;
    const wanted = files.filter((file) => !(self.bookDisk && file.path in self.bookDisk));
    let read = files.length - wanted.length;
    phase("read", read, files.length);
    await Promise.all(
      wanted.map((file) => diskScript(file.script).then(() => phase("read", ++read, files.length))),
    );
    phase("unpack");
    const disk = {};
    for (const { path, type } of files) disk[path] = { bytes: decoded(self.bookDisk[path]), type };
    return disk;
  }

  // One start of the page's worker, as the page holds it from the first reach: messages
  // posted before the worker exists (from disk, it waits for its files) wait for it.
  class Channel {
    constructor(receive, broken) {
      this.worker = null;
      this.queue = [];
      this.ended = false;
      this.receive = receive;
      this.broken = broken;
    }

    attach(worker) {
      if (this.ended) return worker.terminate();
      this.worker = worker;
      worker.onmessage = (event) => this.receive(event.data);
      worker.onerror = (event) => this.broken(event.message || "the worker failed");
      for (const [message, transfer] of this.queue) worker.postMessage(message, transfer);
      this.queue = null;
    }

    postMessage(message, transfer = []) {
      if (this.worker) this.worker.postMessage(message, transfer);
      else this.queue.push([message, transfer]);
    }

    terminate() {
      this.ended = true;
      if (this.worker) this.worker.terminate();
    }
  }

  // The words of the start (tools/site/runtime.py, the page data #python-start): kept from
  // the page that had them, since the lab and learner mode start Python too.
  let startData = null;

  // The page's Python: one worker for the visit, whichever chapter is shown.
  const python = {
    worker: null, // its Channel
    ready: null, // a promise: Python is loaded
    loaded: null, // {resolve, reject} of `ready`
    isReady: false,
    progress: "", // how far the start has come, in words
    phase: null, // {name, since, numbers} of the start's phase now
    ticking: null, // the interval that shows a long phase's seconds
    afresh: "", // said once: the kept start could not be used
    how: null, // once ready: "restored", "started" (nothing kept), "afresh" (dropped)
    keeping: null, // the writing of the snapshot this start made, as a promise
    snapshots, // for the tests (tests/helpers/browser.py)
    listener: null, // the Notebook of the page shown
    learner: null, // learner mode's Python (learner.js), on the page that has it
    lab: null, // the two-moons lab (docs/assets/lab/lab.js), on the page that has it

    // The reader reaches for Python: start it, if it is not loaded or loading.
    warm() {
      if (this.worker === null && startData !== null) this.start();
    },

    start() {
      const channel = new Channel(
        (message) => channel === this.worker && this.receive(message),
        (error) => channel === this.worker && this.broken(error),
      );
      this.worker = channel;
      this.afresh = "";
      this.ready = new Promise((resolve, reject) => {
        this.loaded = { resolve, reject };
      });
      this.ready.catch(() => {}); // whoever awaits it handles the failure
      this.show("begin");
      this.ticking = setInterval(() => this.say(), 1000);
      this.boot(channel, startData).catch((error) => channel === this.worker && this.broken(error));
    },

    async boot(channel, start) {
      const onDisk = location.protocol === "file:";
      // Served, the worker's script loads while the kept start is read.
      if (!onDisk) channel.attach(new Worker(new URL("worker.js", here), { type: "module" }));
      const phase = (name, received = 0, expected = 0) => channel === this.worker && this.show(name, received, expected);
      let [disk, kept] = await Promise.all([
        onDisk ? fromDisk(start, phase) : null,
        self.indexedDB ? snapshots.read() : null,
      ]);
      const why = kept && this.unusable(kept, start);
      if (why) {
        this.dropped(why);
        kept = null;
      }
      const files = disk ? Object.values(disk).map((file) => file.bytes.buffer) : [];
      const site = new URL("../../", here).href;
      // From disk, the browser's own Worker (search's shim replaces window.Worker there:
      // tools/site/theme/main.html keeps the browser's as window.bookWorker).
      if (onDisk) {
        const Native = window.bookWorker || Worker;
        const source = self.bookDisk["assets/notebook/worker.js"];
        channel.attach(new Native(`data:text/javascript;base64,${source}`, { type: "module" }));
      }
      const keep = Boolean(self.indexedDB);
      const { key, limit } = start;
      const message = { kind: "start", site, disk, kept, keep, key, limit };
      channel.postMessage(bookProtocol.check("to the worker", message), kept ? [kept.bytes, ...files] : files);
    },

    // Every message is checked against tools/page/protocol.py (docs/assets/notebook/protocol.js):
    // a bad one to post throws, naming the kind and field; a bad one received stops Python.
    post(message) {
      this.worker.postMessage(bookProtocol.check("to the worker", message));
    },

    // Why a kept start cannot be used here (a key of tools/site/runtime.py's
    // AFRESH_BECAUSE), or null: worker.js tries to restore it, and Pyodide may still refuse.
    unusable(kept, start) {
      if (kept.key !== start.key) return "build";
      if (kept.bytes.byteLength > start.limit) return "large";
      return null;
    },

    // The kept start is dropped: said once, on this start's progress and in the console.
    dropped(because, error = "") {
      this.afresh = startData.afresh.replace("{why}", startData.because[because].replace("{error}", error));
      console.info(`notebook: ${this.afresh}`);
      snapshots.drop();
    },

    // The start's phase now, in the words of tools/site/runtime.py.
    show(name, received = 0, expected = 0) {
      if (this.phase?.name !== name) this.phase = { name, since: performance.now() };
      this.phase.numbers = { received, expected };
      this.say();
    },

    say() {
      if (!this.phase || !startData) return;
      const { name, since, numbers } = this.phase;
      let words = startData.phases[name];
      const { received, expected } = numbers;
      if (name === "download") words = words.replace("{received}", megabytes(received)).replace("{expected}", megabytes(expected));
      else words = words.replace("{received}", received).replace("{expected}", expected);
      const seconds = Math.floor((performance.now() - since) / 1000);
      if (seconds >= 1) words = startData.waiting.replace("{phase}", words).replace("{seconds}", seconds);
      else words += "…";
      this.progress = this.afresh ? `${this.afresh} ${words}` : words;
      if (this.listener) this.listener.progress(this.progress);
    },

    done() {
      clearInterval(this.ticking);
      this.phase = null;
    },

    receive(message) {
      try {
        bookProtocol.check("from the worker", message);
      } catch (error) {
        console.error(`notebook: the page's Python posted a bad message: ${error.message}`);
        this.broken(`a bad message from the worker: ${error.message}`);
        return;
      }
      if (message.kind === "ready") {
        this.done();
        this.how = message.restored ? "restored" : this.afresh ? "afresh" : "started";
        this.isReady = true;
        this.loaded.resolve();
      } else if (message.kind === "loading") {
        this.show(message.phase, message.received, message.expected);
      } else if (message.kind === "afresh") this.dropped(message.because, message.error);
      else if (message.kind === "snapshot") this.keeping = snapshots.write(message.key, message.bytes);
      else if (message.kind === "broken") this.broken(message.error);
      else if (message.kind.startsWith("learn")) this.learner?.receive(message);
      else if (message.kind === "lab") this.lab?.receive(message);
      else if (this.listener) this.listener.receive(message);
    },

    broken(error) {
      if (this.worker === null) return;
      const first = String(error).split("\n")[0];
      const failure = new Error(`The page's Python stopped: ${first}. The next Run starts it afresh.`);
      this.loaded.reject(failure);
      if (this.listener) this.listener.broken(failure);
      if (this.learner) this.learner.broken(String(error));
      if (this.lab) this.lab.broken(first);
      this.discard();
    },

    // A fence's Stop: the worker ends; a learner's check waiting in it is told so.
    stop() {
      const stopped = new Stopped();
      this.loaded.reject(stopped);
      if (this.learner) this.learner.broken(stopped.message);
      if (this.lab) this.lab.broken(stopped.message);
      this.discard();
    },

    // Learner mode ends the worker (a chapter over its time limit): `why`, to a Run waiting.
    end(why) {
      this.broken(why);
    },

    discard() {
      if (this.worker) this.worker.terminate();
      this.done();
      this.worker = null;
      this.isReady = false;
    },
  };

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
      // While the editor has the focus: how to leave it, and what Tab does.
      const hint = element("div", "notebook-hint", "Tab moves on · Shift+Enter runs · Esc goes to Run");
      host.after(hint);
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

  class Notebook {
    constructor(page, blocks) {
      this.page = page;
      this.chapter = page.chapter;
      // Every listener set for the page, removed when it is left: Material keeps some of a
      // left page's elements referenced, and a listener would keep this Notebook with them.
      this.leaving = new AbortController();
      this.listening = { signal: this.leaving.signal }; // addEventListener's options
      this.title = document.querySelector("article h1")?.textContent.trim() ?? this.chapter;
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

    // Reset all: the book's code in every fence, and none of the chapter's edits kept.
    resetAll() {
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
    const start = document.getElementById("python-start");
    if (start) startData = bookPage.data(start);
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
  // the same Python, not a second one; the lab also reads the page's fences as edited.
  // Learner mode loads the same editor, when the reader reaches for it as for a fence.
  window.bookPython = python;
  window.bookEditor = { load: (where) => editorScript.load(where), onReach };
  python.page = () => (current ? { data: current.page, codes: current.codes() } : null);

  bookPage.onPage(setup); // docs/assets/page/page.js
})();
