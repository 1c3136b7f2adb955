// The Python side of a chapter page's Run buttons, in a Web Worker (a module worker:
// Pyodide refuses classic ones), so that a long loop never freezes the page; Stop
// terminates this worker. notebook.js creates it on the first Run click.
//
// It loads Pyodide from the site itself (assets/pyodide/, copied there by
// tools/site/runtime.py), writes micrograd.py, kernel.py and pytest.py (the page's
// pytest.raises) into Pyodide's file system, and runs fences with tools/kernel.py: the
// same code that runs them under pytest.
//
// Messages in:  {kind: "fresh", chapter}  a new namespace for the chapter
//               {kind: "run", index, code, line, engine}
// Messages out: {kind: "ready"}  Python is loaded
//               {kind: "print", index, text}  as the fence prints
//               {kind: "done", index, failure}  failure: null, or the kernel's report
//               {kind: "broken", error}  Python could not be loaded

const here = (name) => new URL(name, import.meta.url).href;
const PAGE_PYTHON = ["micrograd.py", "kernel.py", "pytest.py"];

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

function limitStack(pyodide) {
  const c = pyodide._module; // Pyodide's C exports
  const top = c._emscripten_stack_get_current();
  const thread = c._PyThreadState_Get();
  c._PyUnstable_ThreadState_SetStackProtection(thread, top - PYTHON_STACK, PYTHON_STACK);
}

let python = null; // Pyodide, once loaded
let kernel = null; // the kernel module
let book = null; // the chapter's Kernel

async function load() {
  await import(here("../pyodide/pyodide.js")); // defines globalThis.loadPyodide
  const pyodide = await globalThis.loadPyodide({ indexURL: here("../pyodide/") });
  limitStack(pyodide);
  for (const name of PAGE_PYTHON) {
    const response = await fetch(here(name));
    if (!response.ok) throw new Error(`${name}: HTTP ${response.status}`);
    pyodide.FS.writeFile(name, await response.text());
  }
  kernel = pyodide.pyimport("kernel");
  return pyodide;
}

const loading = load().then(
  (pyodide) => {
    python = pyodide;
    postMessage({ kind: "ready" });
  },
  (error) => postMessage({ kind: "broken", error: String((error && error.stack) || error) }),
);

// Messages are handled one at a time, in order, once Python is loaded.
let queue = loading;
onmessage = (event) => {
  queue = queue.then(() => handle(event.data));
};

function handle(message) {
  if (python === null) return; // broken: notebook.js has been told
  try {
    step(message);
  } catch (error) {
    // Python itself failed (a fence's own errors are reports): nothing more can run here.
    python = null;
    postMessage({ kind: "broken", error: String((error && error.stack) || error) });
  }
}

function step(message) {
  if (message.kind === "fresh") {
    python.runPython("import sys; sys.modules.pop('micrograd', None)");
    book = kernel.Kernel(message.chapter);
  } else if (message.kind === "run") {
    const echo = (text) => postMessage({ kind: "print", index: message.index, text });
    const failure = book.attempt(message.code, message.line, message.engine, echo);
    postMessage({ kind: "done", index: message.index, failure: failure ?? null });
  }
}
