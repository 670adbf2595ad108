// Miles 101: the log doctor loads when the reader comes to it, not with the page. Its module (the
// component, the matching, the worker) and its rules load once the doctor is near the window (a reader
// scrolling or jumping to it) or is touched or focused; a browser without IntersectionObserver loads it
// at once. Until then, and without scripts, the doctor's box says how to get the same answer offline.
(() => {
  "use strict";
  const roots = [...document.querySelectorAll(".m101-doctor")];
  if (!roots.length || !document.currentScript) return;
  const src = new URL("m101-log-doctor.js", document.currentScript.src).href;
  let observer = null;
  let started = false;
  const load = () => {
    if (started) return;
    started = true;
    if (observer) observer.disconnect();
    import(src).catch(() => {
      for (const root of roots) {
        const note = root.querySelector(".m101-doctor-nojs");
        if (note) note.textContent = "The log doctor could not load; use read_run.py --diagnose instead.";
      }
    });
  };
  if (!("IntersectionObserver" in window)) {
    load();
    return;
  }
  observer = new IntersectionObserver(entries => { if (entries.some(e => e.isIntersecting)) load(); },
    {rootMargin: "800px 0px"});
  for (const root of roots) {
    observer.observe(root);
    for (const type of ["pointerdown", "focusin", "dragenter"]) root.addEventListener(type, load, {once: true});
  }
})();
