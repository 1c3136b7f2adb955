// What every page script shares: the page's data, a maker of elements, and instant
// navigation wherever the site is served.
//
// Data: the build writes what a page's scripts need as JSON in hidden elements
// (<span class="page-data" data-json="…">, tools/site/page_data.py), not in script
// elements, which Material's instant navigation would run as JavaScript.
// bookPage.data(element) reads one.
//
// Instant navigation (navigation.instant in mkdocs.yml): Material swaps the next page in
// without reloading, so the page's Python lives on from chapter to chapter. Material does
// it only for links to the pages sitemap.xml lists, by their addresses under site_url: on
// the published site, or under `mkdocs serve`, which puts its own address there. Served
// anywhere else (`python3 -m http.server -d site`, the tests' server), the links to those
// same pages, read from the sitemap relative to where the site is served, are handed to
// Material's own navigation here. Opened from disk (file://) Material keeps ordinary
// navigation, and so does this.

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

    // Call `setup` on every page shown: on Material's document$, which emits the first page
    // and each page instant navigation swaps in. Opened from disk, Material's instant
    // navigation is off and its document$ ends without a page (9.x), so there: once the
    // page is parsed.
    onPage(setup) {
      const served = location.protocol !== "file:";
      if (typeof document$ !== "undefined" && served) document$.subscribe(setup);
      else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setup);
      else setup();
    },
  };

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

  // The pages the sitemap lists, as paths where the site is served: the sitemap's
  // addresses all start with site_url, the longest folder they share.
  let pages = new Set(); // until the sitemap has been read, links load as usual
  fetch(new URL("sitemap.xml", base))
    .then((response) => response.text())
    .then((text) => {
      const sitemap = new DOMParser().parseFromString(text, "application/xml");
      const paths = [...sitemap.querySelectorAll("url > loc")].map((loc) => new URL(loc.textContent).pathname);
      const up = (folder) => folder.slice(0, folder.lastIndexOf("/", folder.length - 2) + 1);
      let root = paths.length ? paths[0].slice(0, paths[0].lastIndexOf("/") + 1) : "/";
      for (const path of paths) while (!path.startsWith(root)) root = up(root);
      pages = new Set(paths.map((path) => new URL(path.slice(root.length), base).pathname));
    })
    .catch(() => {});

  // After Material's own handler, which has already claimed the links it knows.
  document.addEventListener("click", (event) => {
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const link = event.target instanceof Element ? event.target.closest("a[href]") : null;
    if (!link || link.target || link.hasAttribute("download")) return;
    const url = new URL(link.href);
    if (url.origin !== base.origin || !pages.has(url.pathname)) return;
    if (url.pathname === location.pathname) return; // the browser scrolls to the anchor
    event.preventDefault();
    history.replaceState({ x: scrollX, y: scrollY }, "");
    history.pushState(null, "", url);
    location$.next(url);
  });
})();
