// The page's Python (window.bookPython): one worker (worker.js) for the visit, shared by the
// Run buttons (python.listener, notebook.js), learner mode (python.learner, learner.js: the
// messages whose kind starts with "learn") and the lab (python.lab, lab.js); "broken" and a
// Stop reach them all. It starts when the reader first reaches for code (warm): served, from
// the site's files; from disk, from their classic-script copies (fromDisk), in a worker
// started from a data: URL. A start made once is kept in the browser (snapshots) and
// restored by the next ones, unless it is another build's or too large (unusable). While it
// starts, the fence that waits shows the phase the worker names, in the words of the page
// data #python-start (tools/site/runtime.py); a start that cannot end is said to have failed.

(function () {
  "use strict";

  const here = new URL(".", document.currentScript.src);
  const { element } = bookPage; // docs/assets/page/page.js

  class Stopped extends Error {
    constructor() {
      super("stopped by a fence's Stop button");
    }
  }

  // A megabyte count as the status line shows it.
  const megabytes = (bytes) => (bytes / 1e6).toFixed(1);

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
    const node = element("script");
    node.src = new URL(`../../${script}`, here).href;
    document.head.append(node);
    return bookPage.loaded(node).catch(() => Promise.reject(new Error(`${node.src} could not be read from disk`)));
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
    heard: 0, // when the starting worker last said how far it has come
    ticking: null, // the interval that shows a phase's seconds, from the phase's start
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
      this.boot(channel, startData).catch((error) => channel === this.worker && this.broken(error));
    },

    async boot(channel, start) {
      const onDisk = location.protocol === "file:";
      const phase = (name, received = 0, expected = 0) => channel === this.worker && this.show(name, received, expected);
      // Served, the worker's script loads while the kept start is read.
      if (!onDisk) phase("begin");
      if (!onDisk) channel.attach(new Worker(new URL("worker.js", here), { type: "module" }));
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

    // The start's phase now, in the words of tools/site/runtime.py: only forward (a phase
    // START_PHASES orders before the one shown is not shown again), its seconds counted
    // from its own beginning.
    show(name, received = 0, expected = 0) {
      this.heard = performance.now();
      const order = startData.phases.map(([phase]) => phase);
      if (this.phase && order.indexOf(name) < order.indexOf(this.phase.name)) return;
      if (this.phase?.name !== name) {
        this.phase = { name, since: this.heard };
        clearInterval(this.ticking);
        this.ticking = setInterval(() => this.say(), 1000);
      }
      this.phase.numbers = { received, expected };
      this.say();
    },

    // Each second of a phase: its words, and its seconds; past startData.stall seconds
    // without a word from the worker, the start has failed (it never ends on its own).
    say() {
      if (!this.phase || !startData) return;
      const { name, since, numbers } = this.phase;
      let words = startData.phases.find(([phase]) => phase === name)[1];
      const { received, expected } = numbers;
      if (name === "download") words = words.replace("{received}", megabytes(received)).replace("{expected}", megabytes(expected));
      else words = words.replace("{received}", received).replace("{expected}", expected);
      const silent = Math.floor((performance.now() - this.heard) / 1000);
      if (silent > startData.stall) return this.broken(startData.stalled.replace("{seconds}", silent).replace("{phase}", words));
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
      const first = String(error).split("\n")[0].replace(/^Error: |\.$/g, "");
      const failure = new Error(
        this.isReady
          ? `The page's Python stopped: ${first}. The next Run starts it afresh.`
          : `Python could not start: ${first}. The next Run tries again.`,
      );
      failure.why = first; // what failed, for a message that says "could not start" its own way
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

  python.Stopped = Stopped;
  window.bookPython = python;
  // The words of the start: kept from the page that had them (the lab and learner mode start it too).
  bookPage.onPage(() => {
    const start = document.getElementById("python-start");
    if (start) startData = bookPage.data(start);
  });
})();
