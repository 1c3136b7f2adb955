// The site's code editor: CodeMirror 6 with Python, as one script that defines
// window.CodeEditor. Bundled by tools/site/editor.py (esbuild, pinned in package.json and
// package-lock.json) while the site is built; docs/assets/notebook/notebook.js makes each
// python fence one, and docs/assets/learner/learner.js holds the learner's engine in one.
// It runs once a tab: the bundle's banner (editor.py's ONCE) skips it where it ran before.

import { indentLess, indentMore } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import { bracketMatching, indentOnInput, indentUnit, syntaxHighlighting } from "@codemirror/language";
import { EditorState, Prec, StateField } from "@codemirror/state";
import { highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers } from "@codemirror/view";
import { classHighlighter } from "@lezer/highlight";
import { EditorView, minimalSetup } from "codemirror";

// Whether the reader has typed in this editor (typing, pasting or deleting): until then Tab
// and Shift+Tab move through the page as everywhere else, so that a keyboard passing by
// never edits or is trapped; after that they indent, and Escape leaves.
const typed = StateField.define({
  create: () => false,
  update: (was, tr) => was || tr.isUserEvent("input") || tr.isUserEvent("delete"),
});
const tabIndents = [
  typed,
  keymap.of([
    {
      key: "Tab",
      run: (view) => view.state.field(typed) && indentMore(view),
      shift: (view) => view.state.field(typed) && indentLess(view),
    },
  ]),
];

// An editor in `parent` holding `doc`. Options: label (for screen readers), lineNumbers,
// onChange(text) after each edit, onRun() on Shift+Enter, onTyped() once, when the reader
// first types in it (from then on Tab indents).
function create(parent, { doc, label, onChange, onRun, onTyped, numbered }) {
  const extensions = [
    minimalSetup,
    python(),
    indentUnit.of("    "),
    indentOnInput(),
    bracketMatching(),
    syntaxHighlighting(classHighlighter), // tok-* classes, coloured by editor.css
    tabIndents,
    EditorView.contentAttributes.of({ "aria-label": label || "Python code" }),
  ];
  if (onTyped) {
    extensions.push(
      EditorView.updateListener.of((update) => {
        if (update.state.field(typed) && !update.startState.field(typed)) onTyped();
      }),
    );
  }
  if (onRun) {
    const run = { key: "Shift-Enter", run: () => (onRun(), true) };
    extensions.push(Prec.highest(keymap.of([run])));
  }
  if (numbered) extensions.push(lineNumbers(), highlightActiveLineGutter(), highlightActiveLine());
  if (onChange) {
    extensions.push(
      EditorView.updateListener.of((update) => {
        if (update.docChanged) onChange(update.state.doc.toString());
      }),
    );
  }
  return new EditorView({ state: EditorState.create({ doc, extensions }), parent });
}

// Whether Tab indents in this editor now (the reader has typed in it).
function tabIndentsNow(view) {
  return view.state.field(typed);
}

function text(view) {
  return view.state.doc.toString();
}

// Replace the whole text, as one step that Undo takes back.
function setText(view, doc) {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: doc } });
}

// The editor an element is in (the tests read editors through this).
function of(element) {
  const root = element.closest(".cm-editor");
  return root ? EditorView.findFromDOM(root) : null;
}

window.CodeEditor = { create, text, setText, of, tabIndentsNow };
