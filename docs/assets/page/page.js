// What every page script shares: the page's data, a maker of elements, and instant
// navigation wherever the site is served; and what every page needs for keyboards and
// screen readers (see markScrollers and nameSearch).
//
// Data: the build writes what a page's scripts need as JSON in hidden elements
// (<span class="page-data" data-json="…">, tools/site/page_data.py), not in script
// elements, which Material's instant navigation would run as JavaScript.
// bookPage.data(element) reads one.
//
// Instant navigation (navigation.instant in mkdocs.yml): Material swaps the next page in
// without reloading, so the page's Python lives on from chapter to chapter. Material does
// it only for links to the pages sitemap.xml lists, by their addresses under site_url:
// under `mkdocs serve`, which puts its own address there, or once the site is published
// at an address set in mkdocs.yml. Anywhere else (no site_url yet, so a sitemap without
// addresses; `python3 -m http.server -d site`; the tests' server), the links to the pages
// that the site's navigation lists are handed to Material's own navigation here. Opened
// from disk (file://) Material keeps ordinary navigation (tools/site/theme/main.html),
// and so does this.

(function () {
  "use strict";

  window.bookPage = {
    data: (element) => JSON.parse(element.dataset.json),

    // A new element: element("p", "note", "text").
    element(tag, className, text) {
      const node = document.createElement(tag);
      if (className) node.className = className;
      if (text !== undefined) node.textContent = text;
      return node;
    },

    // A button of the page's code bars: button("notebook-run", "▶ Run", "what it does").
    button(className, label, title) {
      const node = bookPage.element("button", "notebook-button " + className, label);
      node.type = "button";
      node.title = title;
      return node;
    },

    // The load of a <script> or <link> put in the page, as a promise.
    loaded: (node) =>
      new Promise((resolve, reject) => {
        node.addEventListener("load", () => resolve(), { once: true });
        node.addEventListener("error", () => reject(new Error(`${node.src || node.href} did not load`)), { once: true });
      }),

    // Text in which `backticks` mark code, as an element: the backticked parts set as <code>.
    withCode(className, text) {
      const node = bookPage.element("span", className);
      text.split("`").forEach((part, i) => node.append(i % 2 ? bookPage.element("code", "", part) : part));
      return node;
    },

    // Call `setup` on every page shown: on Material's document$, which emits the first page
    // and each page instant navigation swaps in (opened from disk too: only the first).
    // Without Material's script, once the page is parsed.
    onPage(setup) {
      if (typeof document$ !== "undefined") document$.subscribe(setup);
      else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setup);
      else setup();
    },
    scrollers: () => markScrollers(), // after a script changed the page: what scrolls now
  };

  // What scrolls sideways in a page where the screen is narrower than it (a wide equation,
  // a wide figure, a table): reachable by keyboard (a tab stop, so that the arrow keys
  // scroll it), named for screen readers, marked (data-scrolls) so that the page shows a
  // shadow at the edge that hides more (book.css), with a line under it that says so.
  // Checked again when the window changes size: on a wide screen nothing scrolls, and
  // nothing is a tab stop.
  const SCROLLERS = "article :is(div.arithmatex, p:has(> svg.picture), .md-typeset__scrollwrap, .learner-rows)";
  const KINDS = [
    ["div.arithmatex", "Equation"],
    ["p", "Figure"],
    ["*", "Table"],
  ];
  // First, a display equation a little wider than its column is set smaller (--fit,
  // math.css), down to FIT_LEAST of its size (on a phone, 14.4 px: larger than the code
  // around it). Wider still, it scrolls.
  const FIT_LEAST = 0.8;
  function markScrollers() {
    for (const box of document.querySelectorAll("article div.arithmatex")) {
      box.style.removeProperty("--fit");
      const fit = (0.98 * box.clientWidth) / inkWidth(box);
      if (fit < 1) box.style.setProperty("--fit", Math.max(FIT_LEAST, fit).toFixed(3));
    }
    const counts = {};
    for (const box of document.querySelectorAll(SCROLLERS)) {
      const scrolls = box.scrollWidth > box.clientWidth + 1;
      if (scrolls) {
        const kind = KINDS.find(([selector]) => box.matches(selector))[1];
        counts[kind] = (counts[kind] || 0) + 1; // each named apart: landmarks must differ
        box.dataset.scrolls = "yes";
        box.tabIndex = 0;
        box.setAttribute("role", "region");
        box.setAttribute("aria-label", `${kind} ${counts[kind]} on this page, wider than the screen: scroll it sideways`);
        if (!box.nextElementSibling?.matches(".scroll-sign")) {
          const sign = window.bookPage.element("p", "scroll-sign", "⟷ wider than the screen: scroll it sideways");
          sign.setAttribute("aria-hidden", "true"); // the region's name says it already
          box.after(sign);
        }
      } else if (box.dataset.scrolls === "yes") {
        delete box.dataset.scrolls;
        for (const name of ["tabindex", "role", "aria-label"]) box.removeAttribute(name);
        if (box.nextElementSibling?.matches(".scroll-sign")) box.nextElementSibling.remove();
      }
    }
  }
  // How wide an equation is drawn: its content's, not its <math display=block>'s, which
  // fills the box however narrow the equation (so scrollWidth would fit every one).
  function inkWidth(box) {
    const math = box.querySelector("math");
    if (!math) return box.scrollWidth;
    const range = document.createRange();
    range.selectNodeContents(math);
    return range.getBoundingClientRect().width;
  }
  let resizing = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizing);
    resizing = setTimeout(markScrollers, 100);
  });

  // Material's search dialog has no name (axe-core's aria-dialog-name): give it one.
  function nameSearch() {
    const search = document.querySelector(".md-search[role=dialog]");
    if (search && !search.hasAttribute("aria-label")) search.setAttribute("aria-label", "Search");
  }

  window.bookPage.onPage(() => {
    nameSearch();
    markScrollers();
  });
  document.fonts.ready.then(markScrollers); // the math font changes the equations' widths

  const config = document.getElementById("__config");
  if (location.protocol === "file:" || !config || typeof location$ === "undefined") return;
  if (!JSON.parse(config.textContent).features.includes("navigation.instant")) return;
  const base = new URL(JSON.parse(config.textContent).base, location.href);

  // Material 9.x listens to its media queries anew for each page it swaps in and never
  // stops (watchMedia: matchMedia's addListener, no removeListener). Each listener keeps a
  // component of a page left, and through it that page's whole tree, since a node holds its
  // parent: so the page left, once every script has let go of it, is taken apart.
  let shown = null; // the container of the page shown
  window.bookPage.onPage(() => {
    const left = shown;
    shown = document.querySelector("[data-md-component=container]");
    if (left && !left.isConnected) {
      setTimeout(() => left.querySelectorAll("*").forEach((node) => node.remove()));
    }
  });

  // The site's pages, as the navigation of the page shown lists them.
  const pages = () =>
    new Set([...document.querySelectorAll("nav.md-nav--primary a.md-nav__link[href]")].map((a) => new URL(a.href).pathname));

  // After Material's own handler, which has already claimed the links it knows.
  document.addEventListener("click", (event) => {
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const link = event.target instanceof Element ? event.target.closest("a[href]") : null;
    if (!link || link.target || link.hasAttribute("download")) return;
    const url = new URL(link.href);
    if (url.origin !== base.origin || !pages().has(url.pathname)) return;
    if (url.pathname === location.pathname) return; // the browser scrolls to the anchor
    event.preventDefault();
    history.replaceState({ x: scrollX, y: scrollY }, "");
    history.pushState(null, "", url);
    location$.next(url);
  });
})();
