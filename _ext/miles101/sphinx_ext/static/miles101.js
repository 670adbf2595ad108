/* Miles 101: the two small behaviours the pages need, no library.
 *
 * 1. Diagrams keep readable labels. Each drawing has its own size and the page would shrink a wide
 *    drawing to fit the column (labels at 5 px). Here each drawing is sized to the column but never
 *    below the scale at which its labels read at MIN_LABEL_PX; a wider drawing scrolls inside its
 *    frame (the frame says so), never the page. A small drawing is not blown up past its own size.
 * 2. Provenance tips: a value's `title` is shown in the page's one tip on hover and keyboard focus, placed
 *    in viewport coordinates (so a table's scroll box does not clip it), shifted left or right and flipped
 *    above the value when it would run off; Escape closes it. A click or Enter follows the value's link to
 *    its entry in "Values on this page" (item 5 opens the fold); on a touch screen the first tap shows the
 *    tip and a second tap follows the link.
 * 3. What scrolls can be reached by keyboard: a code block, table, equation or drawing that is wider
 *    (or taller) than its box at this window size gets tabindex=0, so Tab reaches it and the arrow
 *    keys scroll it, and a name (role=group with aria-label, unless it has a role already: a group, not
 *    a region, so a page of code blocks does not flood the landmark list). It is checked again when
 *    the window's size changes; a box that stops scrolling loses the tab stop.
 * 4. A table marked m101-stack (_ext/miles101/sphinx_ext/tables.py) that is wider than its column gets
 *    m101-stacked: the stylesheet draws one block per row, each cell under its column's name.
 * 5. A link into a fold works: when the address names an element inside a closed <details> (a folded
 *    explanation, "Values on this page"), every fold around it opens and the element scrolls into view.
 */
(() => {
  "use strict";
  // No class on <html> to say the script runs: adding one after the page is parsed made the browser
  // recompute the style of every element (10,000 on 7.1); a tip the script places is marked on itself.

  // ------------------------------------------------------------------ diagrams
  const narrow = () => window.matchMedia("(max-width: 40em)").matches;
  const minLabelPx = () => (narrow() ? 12 : 13);
  const MAX_SCALE = 1; // a small diagram keeps its own size: never blown up

  function labelFontPx(svg) {
    const label = svg.querySelector(".nodeLabel, .edgeLabel, .cluster-label, text");
    const px = label ? parseFloat(getComputedStyle(label).fontSize) : NaN;
    return Number.isFinite(px) && px > 0 ? px : 16;
  }

  // Reads only (layout and computed style); the writes come after every drawing is measured, so the page
  // is laid out once for all of them, not once per drawing.
  function measureDiagram(pre) {
    const svg = pre.querySelector(":scope > svg");
    if (!svg) return null;
    const vb = svg.viewBox && svg.viewBox.baseVal;
    const natural = vb && vb.width ? vb.width : parseFloat(svg.getAttribute("width")) || 0;
    const frame = pre.clientWidth;
    if (!natural || !frame) return null;
    const fit = frame / natural;
    const floor = minLabelPx() / labelFontPx(svg);
    return {pre, svg, natural, frame, scale: Math.max(floor, Math.min(fit, MAX_SCALE))};
  }

  function sizeDiagram({pre, svg, natural, frame, scale}) {
    svg.style.setProperty("width", `${Math.round(natural * scale)}px`, "important");
    svg.style.setProperty("max-width", "none", "important");
    const figure = pre.closest(".m101-figure");
    if (figure) figure.classList.toggle("m101-scrolls", natural * scale > frame + 1);
  }

  const sizeAll = () => [...document.querySelectorAll(".m101-figure .m101-drawing")].map(measureDiagram)
    .filter(Boolean).forEach(sizeDiagram);

  function watchDiagrams() {
    if (!document.querySelector(".m101-figure .m101-drawing")) return;
    // A tab opening, a window turning: the column width changed.
    let pending = false;
    const later = () => { if (!pending) { pending = true; requestAnimationFrame(() => { pending = false; sizeAll(); }); } };
    window.addEventListener("resize", later);
    document.addEventListener("click", e => { if (e.target.closest && e.target.closest(".sd-tab-set > label")) later(); });
    sizeAll();
  }

  // ------------------------------------------------------------------ tips
  // A value is a link to its entry in "Values on this page", its provenance sentence its `title` (the browser's
  // own tip, and the accessible description, without the script). On hover and keyboard focus the sentence
  // moves into the page's one tip, placed in window coordinates inside the window; the title comes back when
  // the tip closes, and Escape closes it.
  const MARGIN = 8;
  let tip = null, shown = null, sentence = "";

  function place(value) {
    const box = value.getBoundingClientRect();
    const width = tip.offsetWidth, height = tip.offsetHeight;
    const vw = document.documentElement.clientWidth, vh = window.innerHeight;
    const left = Math.max(MARGIN, Math.min(box.left, vw - MARGIN - width));
    let top = box.bottom + 6;
    if (top + height > vh - MARGIN && box.top - 6 - height >= MARGIN) top = box.top - 6 - height; // flip above
    tip.style.left = `${Math.round(left)}px`;
    tip.style.top = `${Math.round(Math.max(MARGIN, top))}px`;
  }

  function hide() {
    if (!shown) return;
    shown.title = sentence;
    shown.removeAttribute("aria-describedby");
    tip.hidden = true;
    shown = null;
  }

  function show(value) {
    if (shown === value || !value.title) return;
    hide();
    if (!tip) {
      tip = Object.assign(document.createElement("span"), {className: "m101-tip", id: "m101-tip", hidden: true});
      tip.setAttribute("role", "tooltip");
      // inside the main landmark, as the tip each value carried before was (axe's region rule)
      (document.querySelector("[role=main], main") || document.body).append(tip);
    }
    sentence = value.title;
    tip.textContent = sentence;
    value.removeAttribute("title");  // no second tip from the browser
    value.setAttribute("aria-describedby", tip.id);
    shown = value;
    tip.hidden = false;
    place(value);
  }

  function watchTips() {
    const valueOf = e => (e.target.closest ? e.target.closest(".m101-value") : null);
    document.addEventListener("mouseover", e => { const v = valueOf(e); if (v) show(v); });
    document.addEventListener("focusin", e => { const v = valueOf(e); if (v) show(v); });
    document.addEventListener("mouseout", e => {
      const v = valueOf(e);
      if (v && v === shown && !v.contains(e.relatedTarget) && document.activeElement !== v) hide();
    });
    document.addEventListener("focusout", e => { if (valueOf(e) === shown) hide(); });
    document.addEventListener("keydown", e => { if (e.key === "Escape") hide(); });
    // A touch has no hover: its first tap on a value shows the tip, a second tap follows the link.
    let tapped = null;
    document.addEventListener("pointerdown", e => {
      const v = valueOf(e);
      tapped = v && e.pointerType === "touch" && shown !== v ? v : null;
    });
    document.addEventListener("click", e => {
      const v = valueOf(e);
      if (v && v === tapped) { e.preventDefault(); show(v); }
      tapped = null;
    });
    const follow = () => { if (shown) place(shown); };
    window.addEventListener("scroll", follow, {passive: true, capture: true});
    window.addEventListener("resize", follow);
  }

  // ------------------------------------------------------------------ stackable tables
  // Unstack all, measure all, then stack the wide ones: one layout for every table, not one per table.
  function stackTables() {
    const tables = [...document.querySelectorAll("table.m101-stack")];
    tables.forEach(table => table.classList.remove("m101-stacked"));
    const wide = tables.map(table => table.getBoundingClientRect().width > table.parentElement.clientWidth + 1);
    tables.forEach((table, i) => { if (wide[i]) table.classList.add("m101-stacked"); });
  }

  // ------------------------------------------------------------------ scroll boxes
  // A drawing scrolls in its own box (.m101-drawing, miles101.css), inside the figure's frame.
  const SCROLLS = "article pre, article .table-wrapper, article .m101-generated, article .m101-math, article .m101-figure, " +
    "article .m101-figure .m101-drawing";

  function scrollName(box) {
    const fig = box.closest(".m101-figure");
    const title = fig && fig.querySelector(".m101-figure-title");
    if (title) return `Figure: ${title.textContent.trim()}`;
    const caption = box.querySelector("caption");
    if (caption) return `Table: ${caption.textContent.trim()}`;
    if (box.matches(".table-wrapper, .m101-generated")) return "Table";
    if (box.matches(".m101-math")) return "Equation";
    const lang = (box.closest("[class*='highlight-']")?.className.match(/highlight-([\w-]+)/) || [])[1];
    return lang && !["default", "none", "text"].includes(lang) ? `Code (${lang})` : "Code";
  }

  function scrolls(box) {
    const cs = getComputedStyle(box);
    const x = /auto|scroll/.test(cs.overflowX) && box.scrollWidth > box.clientWidth + 1;
    const y = /auto|scroll/.test(cs.overflowY) && box.scrollHeight > box.clientHeight + 1;
    return x || y;
  }

  function markScrollBoxes() {
    stackTables();
    // Every box is measured before any attribute changes: a write between two reads would make the
    // browser recompute style and layout again for the next read (the forced layouts Lighthouse showed).
    const boxes = [...document.querySelectorAll(SCROLLS)];
    const scrolling = boxes.map(scrolls);
    boxes.forEach((box, i) => {
      const marked = box.hasAttribute("data-m101-scrolls");
      if (scrolling[i]) {
        if (marked) return;
        box.setAttribute("data-m101-scrolls", box.hasAttribute("tabindex") ? "kept" : "");
        if (!box.hasAttribute("tabindex")) box.tabIndex = 0;
        if (!box.hasAttribute("role")) {
          box.setAttribute("role", "group");
          box.setAttribute("data-m101-role", "");
        }
        if (!box.hasAttribute("aria-label") && !box.hasAttribute("aria-labelledby")) {
          box.setAttribute("aria-label", scrollName(box));
          box.setAttribute("data-m101-label", "");
        }
      } else if (marked) {
        if (box.getAttribute("data-m101-scrolls") !== "kept") box.removeAttribute("tabindex");
        if (box.hasAttribute("data-m101-role")) box.removeAttribute("role");
        if (box.hasAttribute("data-m101-label")) box.removeAttribute("aria-label");
        ["data-m101-scrolls", "data-m101-role", "data-m101-label"].forEach(a => box.removeAttribute(a));
      }
    });
  }

  // One pass when the page has loaded (the theme's own start is done and the page is laid out, so the
  // reads cost no extra layout), then again only when a size changes. Not at DOMContentLoaded: the theme
  // changes the page right after, and a pass there made the browser lay the page out twice.
  function watchScrollBoxes() {
    let pending = false;
    const later = () => { if (!pending) { pending = true; requestAnimationFrame(() => { pending = false; markScrollBoxes(); }); } };
    const first = () => {
      markScrollBoxes();
      window.addEventListener("resize", later);
      // A tab opened, a box that grew: sizes changed inside the page. The observer's first report (every
      // box, as it starts) repeats the pass just made, so it is skipped.
      if (window.ResizeObserver) {
        let started = false;
        const observer = new ResizeObserver(() => { if (started) later(); started = true; });
        document.querySelectorAll(SCROLLS).forEach(box => observer.observe(box));
      }
    };
    document.addEventListener("click", e => { if (e.target.closest && e.target.closest(".sd-tab-set > label")) later(); });
    // In a task of its own: the load event can come in the same task as the theme's DOMContentLoaded work,
    // and the two together made one long task (Chromium's trace of 1.3).
    if (document.readyState === "complete") setTimeout(first, 0);
    else window.addEventListener("load", () => setTimeout(first, 0), {once: true});
  }

  // ------------------------------------------------------------------ links into folds
  function openFoldsAtHash() {
    let id = "";
    try { id = decodeURIComponent(location.hash.slice(1)); } catch (e) { return; }
    const target = id && document.getElementById(id);
    if (!target) return;
    let folded = false;
    for (let el = target.parentElement; el; el = el.parentElement) {
      if (el.tagName === "DETAILS") { el.open = true; folded = true; }
    }
    if (folded) target.scrollIntoView({ behavior: "instant", block: "start" });  // the theme scrolls smoothly: a long way would take seconds
  }

  function watchFolds() {
    window.addEventListener("hashchange", openFoldsAtHash);
    // Again once everything has loaded: what is drawn late above the target moves it down.
    window.addEventListener("load", () => requestAnimationFrame(openFoldsAtHash));
    openFoldsAtHash();
  }

  // Tables are stacked at once (a late change of their height would move the page under the reader);
  // on a page without a stackable table this reads nothing.
  const start = () => { watchDiagrams(); stackTables(); watchTips(); watchScrollBoxes(); watchFolds(); };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
