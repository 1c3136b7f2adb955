// The Python side of a chapter page's Run buttons, in a Web Worker (a module worker:
// Pyodide refuses classic ones), so that a long loop never freezes the page; Stop
// terminates this worker. notebook.js creates it when the reader first reaches for a fence.
//
// It loads Pyodide from the site itself (assets/pyodide/, copied there by
// tools/site/runtime.py), unpacks the page's Python (page.zip: the folder tools/page/,
// whole) and reads the book's engine chunks (engine.json). How a chapter runs is decided
// there, in tools/page/run.py, the same code that runs chapters under pytest: this file
// only passes messages, and draws what Python asks to be drawn.
//
// Figures drawn live (tools/page/live.py): the first time a run asks for a drawing, this
// worker loads Graphviz (assets/viz/viz.js, WebAssembly inside an ES module), and from then
// on lays out the DOT that Python hands it, with the attributes of the book's figures.
//
// The messages in and out are written down once, in tools/page/protocol.py ("to the worker",
// "from the worker"); the build writes them into protocol.js, with which this worker checks
// each message the page posts: one of no known kind, or short of a field, is answered
// {kind: "broken", error} naming it (notebook.js checks what this worker posts). A figure
// message carries the drawing (svg null: not drawn, with the problem), or book: true (the
// book's figure is back). Learner mode (docs/assets/learner/learner.js) and the lab
// (docs/assets/lab/lab.js) have messages of their own, in this same worker: see the end.

import "./protocol.js"; // self.bookProtocol (from disk, written in: runtime.worker_for_disk)

// Started from a page opened from disk (file://), this worker runs from a data: URL: the
// browser refuses it every file: URL, so the page hands it the bytes of each file it needs
// (read from the classic-script copies tools/site/runtime.py writes into assets/disk/),
// and `fetch` and `import` are answered from those bytes (fromDisk below).
//
// A start that has been made once in this browser is kept (Pyodide's memory snapshot, made
// right after the first start and handed to the page, which keeps it in IndexedDB): the next
// starts restore it, in about a second instead of several. The page hands over only a
// snapshot made for this build of the book (its key, tools/site/runtime.py's start_key); one
// Pyodide refuses is dropped, Python starts the plain way and the page says so once.
//
// Messages in (first): {kind: "start", site, disk, kept, keep, key, limit}
//   site: the site's root URL; disk: null served, or from disk {path: {bytes, type}} (path
//   from the site's root); kept: null or {key, bytes}, the snapshot the page kept; keep:
//   whether the page can keep a new one, under `key`, if it is at most `limit` bytes.
// Messages out, while starting: {kind: "loading", phase, received, expected}  the phase
//   (tools/site/runtime.py's START_PHASES words them; "download" counts bytes)
//   {kind: "afresh", because: "refused", error}  Pyodide refused the kept snapshot
//   {kind: "snapshot", key, bytes}  a new snapshot, for the page to keep (bytes transferred)
//   and then {kind: "ready", restored}

let site = null; // the site's root URL, from the start message
const here = (name) => new URL(name, new URL("assets/notebook/", site)).href;

// Python 3.14 frees a long chain of objects (a deep graph of Values) recursively, until
// its C stack checks tell it to defer the rest. In WebAssembly those checks measure
// Emscripten's 10 MB stack in memory, but the browser's own call stack (under 1 MB in a
// worker) overflows long before: Pyodide dies with "Maximum call stack size exceeded"
// when a chain of about 1,000 Values is freed. Telling Python that its stack is 48 KiB
// makes it defer in time (in Chromium a chain of a million nodes is then freed fine;
// 56 KiB is already too much). The price: a runaway recursion through C code, or
// compiling an expression of some 150 chained operators, ends in a RecursionError
// sooner than on a desktop Python. tests/site/test_browser.py runs both kinds of code.
const PYTHON_STACK = 48 * 1024;
const IMPORT_STACK = 256 * 1024; // while modules are imported: see load()
function limitStack(pyodide, size = PYTHON_STACK) {
  const c = pyodide._module; // Pyodide's C exports
  const top = c._emscripten_stack_get_current();
  const thread = c._PyThreadState_Get();
  c._PyUnstable_ThreadState_SetStackProtection(thread, top - size, size);
}

let python = null; // Pyodide, once loaded
let bridge = null; // tools.page.bridge
let engine = null; // engine.json's text
let book = null; // the chapter's Notebook (tools/page/run.py)
let drawing = null; // a promise of {live, draw}: tools.page.live and Graphviz, once asked for
let disk = null; // from disk: the files' bytes by path from the site's root (see fromDisk)

const fetched = (name) => fetch(here(name)); // through guarded(): never a failed response

// A file of the site that cannot be had is an error that names it and its HTTP status,
// said to the page at once while Python starts (started() has not been): Pyodide may wait
// for ever on a file it could not fetch (a missing pyodide.asm.wasm leaves it hanging).
function guarded(fetchNow) {
  return async (...args) => {
    const response = await fetchNow(...args);
    if (response.ok) return response;
    const error = new Error(`${response.url.replace(site, "")}: HTTP ${response.status}`);
    failed(error);
    throw error;
  };
}

// Python cannot go on: said to the page, the error's message first (WebKit's and Firefox's
// stacks leave it out: "readAsDataURL@[native code]" alone would tell a reader nothing).
function broken(error) {
  const text = String(error);
  const stack = String((error && error.stack) || "");
  postMessage({ kind: "broken", error: stack.startsWith(text) ? stack : `${text}\n${stack}`.trim() });
}

let starting = true; // until the start is over: ready, or failed (said once)
function failed(error) {
  if (starting) broken(error);
  starting = false;
}

// A module of the site: imported from its URL (one that does not load is fetched, so that the
// error names it and its status), or from disk from a data: URL of its text (WebKit refuses a
// blob: module there, and its FileReaderSync cannot read a blob there: NotReadableError).
function imported(name) {
  const url = here(name);
  if (disk === null) return import(url).catch((error) => fetch(url).then(() => Promise.reject(error)));
  const { bytes, type } = disk[url.slice(site.length)];
  return import(`data:${type};charset=utf-8,${encodeURIComponent(new TextDecoder().decode(bytes))}`);
}

// From disk, `fetch` answers the site's files from the bytes the page handed over, and
// nothing else (the browser would refuse it anyway).
function fromDisk(files) {
  disk = files;
  globalThis.fetch = async (input) => {
    const url = new URL(typeof input === "string" ? input : input.url ?? String(input), site).href;
    const file = url.startsWith(site) ? disk[url.slice(site.length)] : undefined;
    if (file === undefined) throw new TypeError(`${url}: not a file of the book's folder`);
    const headers = { "Content-Type": file.type, "Content-Length": String(file.bytes.byteLength) };
    return new Response(file.bytes, { headers });
  };
}

// How far the start has come, for the fence that waits: the phase, and of the files
// Pyodide fetches (its WebAssembly and standard library, some 12 MB), the bytes so far.
const download = { received: 0, expected: 0, pending: 0 };
const loading = (phase) => {
  const { received, expected } = download;
  postMessage({ kind: "loading", phase, received, expected });
};

// Pyodide fetches its files itself: count their bytes as they arrive, on a copy of each
// response (the response Pyodide gets is the browser's own, so its compiled WebAssembly is
// cached as usual); once all have arrived, the phase is `next`. Only while Pyodide loads.
async function counted(fetchFile, next) {
  const original = globalThis.fetch;
  let said = -1;
  globalThis.fetch = async (...args) => {
    const response = await original(...args);
    const size = Number(response.headers.get("Content-Length")) || 0;
    if (!size || !response.body || disk !== null) return response;
    download.expected += size;
    download.pending += 1;
    const reader = response.clone().body.getReader();
    (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        download.received += value.byteLength;
        const percent = Math.floor((100 * download.received) / download.expected);
        if (percent !== said) loading("download");
        said = percent;
      }
      download.pending -= 1;
      if (download.pending === 0) loading(next);
    })().catch(() => {});
    return response;
  };
  try {
    return await fetchFile();
  } finally {
    globalThis.fetch = original;
  }
}

// Pyodide, restored from the kept snapshot if there is one (then `restored` is true) and
// Pyodide takes it, else started the plain way (made to be snapshotted if the page can keep
// one).
async function pyodide(options, kept, keep) {
  if (kept !== null) {
    loading("restore");
    try {
      const restored = await counted(
        () => globalThis.loadPyodide({ ...options, _loadSnapshot: kept.bytes }),
        "restore",
      );
      return { pyodide: restored, restored: true };
    } catch (error) {
      const said = String((error && error.message) || error).split("\n")[0];
      postMessage({ kind: "afresh", because: "refused", error: said });
    }
  }
  loading(disk === null ? "begin" : "start");
  const started = await counted(
    () => globalThis.loadPyodide({ ...options, _makeSnapshot: keep }),
    "start",
  );
  return { pyodide: started, restored: false };
}

async function load({ kept, keep, key, limit }) {
  loading("begin");
  const zip = await (await fetched("page.zip")).arrayBuffer();
  engine = await (await fetched("engine.json")).text();
  await imported("../pyodide/pyodide.js"); // defines globalThis.loadPyodide
  const indexURL = here("../pyodide/");
  const options = { indexURL, createPyodideModule: (await imported("../pyodide/pyodide.asm.mjs")).default };
  if (disk !== null) options.lockFileContents = await (await fetched("../pyodide/pyodide-lock.json")).json();
  const { pyodide: python, restored } = await pyodide(options, kept, keep);
  limitStack(python);
  loading("engine");
  // The page's Python, on sys.path (after a restore too: the snapshot holds the heap, not
  // the files, and what is imported later, the lab or learner mode, needs them).
  python.unpackArchive(zip, "zip", { extractDir: python.FS.cwd() });
  // Compiling modules as large as difflib needs more stack than PYTHON_STACK gives, so the
  // page's Python is imported with more, once, before any fence runs.
  limitStack(python, IMPORT_STACK);
  try {
    bridge = python.pyimport("tools.page.bridge");
    if (restored) bridge.after_restore();
    else {
      // `import pytest` in a fence: the page's pytest.raises; `import micrograd` outside a
      // chapter's fences: the whole engine, as the tangled file is on a desktop.
      const modules = python.pyimport("sys").modules;
      modules.set("pytest", python.pyimport("tools.page.pytest"));
      modules.set("micrograd", bridge.finished_engine(engine));
    }
  } finally {
    limitStack(python);
  }
  if (!restored && keep) snapshot(python, key, limit);
  return { python, restored };
}

// The start as it stands, for the page to keep (nothing has run in it yet); a snapshot
// that cannot be made, or is too large to restore (over `limit` bytes), is not kept.
function snapshot(python, key, limit) {
  loading("keep");
  try {
    const bytes = python.makeMemorySnapshot();
    if (bytes.byteLength <= limit) {
      postMessage({ kind: "snapshot", key, bytes }, [bytes.buffer]);
    }
  } catch (error) {
    console.info(`worker: no snapshot kept: ${error}`);
  }
}

async function loadDrawing() {
  const live = python.pyimport("tools.page.live");
  const Viz = await imported("../viz/viz.js");
  const viz = await Viz.instance();
  // DOT -> the book's SVG, with ids under `prefix`; or a reason it is not drawn.
  const draw = (dot, prefix) => {
    const big = live.too_big(dot);
    if (big) return { svg: null, problem: big };
    const svg = viz.renderString(live.dot_for_graphviz(dot), { format: "svg" });
    return { svg: live.finished(svg, prefix), problem: null };
  };
  return { live, draw };
}

// The first message says how to start: from the site or from disk, with a kept snapshot
// or not. Messages are then handled one at a time, in order, once Python is loaded.
let queue = null;
onmessage = (event) => {
  if (queue === null) {
    queue = begin(event.data);
    return;
  }
  queue = queue.then(() => handle(event.data));
};

function begin(message) {
  try {
    bookProtocol.check("to the worker", message);
    if (message.kind !== "start") throw new Error(`the first message must be "start", not "${message.kind}"`);
  } catch (error) {
    postMessage({ kind: "broken", error: `the page posted a bad message: ${error.message}` });
    return Promise.resolve();
  }
  site = message.site;
  if (message.disk !== null) fromDisk(message.disk);
  globalThis.fetch = guarded(globalThis.fetch);
  return load(message).then((loaded) => {
    if (!starting) return; // failed already: a file could not be had
    starting = false;
    python = loaded.python;
    postMessage({ kind: "ready", restored: loaded.restored });
  }, failed);
}

async function handle(message) {
  if (python === null) return; // broken: notebook.js has been told
  try {
    bookProtocol.check("to the worker", message);
  } catch (error) {
    postMessage({ kind: "broken", error: `the page posted a bad message: ${error.message}` });
    return;
  }
  if (message.kind in LEARNER) return learn(message);
  if (message.kind === "lab") return lab(message);
  try {
    if (message.kind === "open") book = bridge.open_chapter(message.page, engine);
    else if (message.kind === "run") await run(message);
  } catch (error) {
    // Python itself failed (a fence's own errors are reports): nothing more can run here.
    python = null;
    broken(error);
  }
}

// Run as the reader asked; then draw what the run asks to be drawn, in order.
async function run({ target, codes, all }) {
  const draws = [];
  const tell = (text) => {
    const event = JSON.parse(text);
    if (event.kind === "figure" || event.kind === "graphs") draws.push(event);
    else postMessage({ kind: "event", event });
  };
  bridge.run(book, target, codes, all, tell);
  for (const event of draws) await draw(event);
  postMessage({ kind: "finished" });
}

// A drawing that fails (the reader's code no longer makes the figure's graph, say) is a
// problem to show beside the figure, not a broken Python.
async function draw(event) {
  if (event.kind === "figure" && !event.live) {
    postMessage({ kind: "figure", name: event.name, book: true });
    return;
  }
  if (drawing === null) drawing = loadDrawing();
  const { live, draw } = await drawing;
  const reason = (error) => String((error && error.message) || error).trim().split("\n").pop();
  if (event.kind === "figure") {
    let answer = { svg: null, steps: null, problem: null };
    try {
      const made = JSON.parse(live.figure(event.name, book.namespace));
      answer = { ...draw(made.dot, event.name), steps: made.steps };
    } catch (error) {
      answer.problem = `the code that ran above does not make this figure's graph: ${reason(error)}`;
    }
    postMessage({ kind: "figure", name: event.name, ...answer });
  } else {
    const graphs = live.printed_graphs(event.text).toJs();
    const drawn = graphs.map((dot, k) => {
      try {
        return draw(dot, `printed-${event.index}-${k}`);
      } catch (error) {
        return { svg: null, problem: `Graphviz could not draw this graph: ${reason(error)}` };
      }
    });
    postMessage({ kind: "graphs", index: event.index, drawn });
  }
}

// --- learner mode: the book's checks against a learner's engine (tools/learn/in_page.py) ---
//
// In: learn-load (the book's zip, unpacked beside page.zip), learn (one chapter against the
// engine's text), learn-table (the table of the runs so far; record: the best scores the
// page keeps, or null). Out: learn-start when one of these starts (it may have waited
// behind a fence), a learn-event for each check the chapter starts, passes or fails; then
// learned, or learn-table (its table: the table and each hint in parts, [text, chapter,
// section], a place of the book where chapter is not null), or broken. Their fields:
// tools/page/protocol.py.

let learner = null; // tools.learn.in_page, in the page's Python

const LEARNER = {
  "learn-load": async ({ bundle }) => {
    const response = await fetch(bundle); // from disk, answered by fromDisk; else guarded()
    // Beside the page's own Python (page.zip), as in the repository: one package `tools`.
    const folder = python.FS.cwd();
    python.unpackArchive(await response.arrayBuffer(), "zip", { extractDir: folder });
    python.runPython(`import sys; sys.path.append("${folder}/packages")`);
    // Compiling modules as large as argparse needs more stack than PYTHON_STACK gives, so
    // learner mode's modules are imported with more, once, before any check runs.
    limitStack(python, IMPORT_STACK);
    try {
      python.runPython("import tools.learn.in_page");
    } finally {
      limitStack(python);
    }
    learner = python.pyimport("tools.learn.in_page");
    postMessage({ kind: "learned" });
  },
  learn: async ({ chapter, engine }) => {
    const tell = (text) => postMessage({ kind: "learn-event", event: JSON.parse(text) });
    learner.check_in_page(chapter, engine, tell);
    postMessage({ kind: "learned" });
  },
  "learn-table": async ({ runs, engine, diagnose, record }) => {
    const kept = JSON.stringify(record || null);
    const table = JSON.parse(learner.table_in_page(JSON.stringify(runs), engine, diagnose, kept));
    postMessage({ kind: "learn-table", table }); // {table: parts, record, fix, hints}
  },
};

function learn(message) {
  postMessage({ kind: "learn-start" });
  return LEARNER[message.kind](message).catch(broken);
}

// --- the two-moons lab (docs/assets/lab/lab.js): tools/page/lab.py decides, JSON both ways ---
//
// In: lab (its request: what the reader did, as JSON). Out: lab (tools.page.lab's answer, as
// JSON: a frame to show, or a refusal), or broken; tools/page/protocol.py has their fields.
// The lab asks for training a slice at a time, so its Pause waits at most one slice, and a
// fence's Run waits at most one too.

let labPython = null; // tools.page.lab, once asked for

function lab({ request }) {
  try {
    if (labPython === null) labPython = python.pyimport("tools.page.lab");
    postMessage({ kind: "lab", answer: labPython.answer(request, engine) });
  } catch (error) {
    broken(error);
  }
}
