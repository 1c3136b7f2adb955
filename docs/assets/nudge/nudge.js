// A nudge control under a figure: move an input by a chosen amount and read how far the
// output moves, next to what the gradient predicts (the gradient times the nudge).
//
// The numbers were computed while the site was built, with the chapter's own function and
// the engine's gradient (tools/figures/plots.py, nudges_of), and follow the figure as JSON in a
// hidden element with data-nudges (read with bookPage.data: docs/assets/page/page.js).
// This script only shows them: no Python, and it works opened from disk.

(function () {
  "use strict";

  const { element } = bookPage; // docs/assets/page/page.js

  // A float as a reader would write it: 3.0500000000000043 is 3.05.
  const shown = (value) => String(Number(value.toPrecision(6)));

  function control(data, held) {
    const svg = held.previousElementSibling;
    const figure = svg.parentElement.matches("p") ? svg.parentElement : svg;
    const box = element("div", "nudge");
    box.setAttribute("role", "group");
    box.setAttribute("aria-label", "Nudge x and see how far L moves");
    const label = element("label", "nudge-label", "Nudge x by ");
    const slider = element("input", "nudge-slider");
    Object.assign(slider, { type: "range", min: 0, max: data.nudges.length - 1, step: 1 });
    slider.value = data.start;
    const amount = element("output", "nudge-amount");
    label.append(slider, amount);
    const readout = element("p", "nudge-readout");
    readout.setAttribute("aria-live", "polite");
    box.append(label, readout);
    figure.after(box);

    const show = () => {
      const { h, moved, predicted } = data.nudges[Number(slider.value)];
      amount.value = shown(h);
      slider.setAttribute("aria-valuetext", `${shown(h)}`);
      const to = shown(data.x + h);
      readout.replaceChildren(
        element("span", "nudge-moved", `x from ${shown(data.x)} to ${to}: L moves by ${shown(moved)}`),
        " (from " + shown(data.L) + " to " + shown(data.L + moved) + "); ",
        element(
          "span",
          "nudge-predicted",
          `gradient × nudge = ${shown(data.grad)} × ${shown(h)} = ${shown(predicted)}`,
        ),
        `; apart by ${shown(moved - predicted)}.`,
      );
      box.dataset.nudge = shown(h);
    };
    slider.addEventListener("input", show, { signal: leaving.signal });
    sliders.push(slider);
    show();
  }

  let leaving = new AbortController(); // aborted when the page is left: its listeners go
  let sliders = []; // the page's

  function setup() {
    if (!sliders.some((slider) => slider.isConnected)) {
      leaving.abort();
      leaving = new AbortController();
      sliders = [];
    }
    for (const held of document.querySelectorAll(".page-data[data-nudges]")) {
      if (held.dataset.ready || !held.previousElementSibling?.matches("svg")) continue;
      held.dataset.ready = "yes";
      control(bookPage.data(held), held);
    }
  }

  bookPage.onPage(setup); // docs/assets/page/page.js
})();
