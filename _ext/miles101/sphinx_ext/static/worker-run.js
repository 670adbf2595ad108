// Miles 101: how the page's log tools (the log doctor, "compare my run") read a log off the page's thread. One
// runner for both: a module worker gets the message and posts progress, then the answer or an error; where no
// worker can start (no Worker, a blocked script) or the worker fails to load, the same reading runs here.
// It moves data only: what is read and how is the caller's (`runHere` and the worker's module).

/** Run `message` in the module worker at `url`; where none can start or it fails to load, `runHere()` (a promise
 * or a value) gives the answer instead. The worker posts {type: "progress", done, total}, then
 * {type: "done", result} or {type: "error", message}; each progress goes to `onProgress(done, total)`.
 * Returns {promise, cancel}: cancel stops the worker and rejects with Error("cancelled"); its answer never comes. */
export function runInWorker(url, message, runHere, onProgress) {
  let worker = null;
  let cancel = () => {};
  const here = () => new Promise((resolve) => resolve(runHere())); // a throw in runHere rejects
  const promise = new Promise((resolve, reject) => {
    cancel = () => {
      if (worker) worker.terminate();
      reject(new Error("cancelled"));
    };
    try {
      worker = new Worker(url, { type: "module" });
    } catch {
      worker = null;
    }
    if (worker === null) {
      here().then(resolve, reject);
      return;
    }
    worker.onmessage = (e) => {
      const m = e.data;
      if (m.type === "progress") onProgress(m.done, m.total);
      else {
        worker.terminate();
        if (m.type === "done") resolve(m.result);
        else reject(new Error(m.message));
      }
    };
    worker.onerror = (e) => {
      worker.terminate();
      e.preventDefault();
      here().then(resolve, reject);
    };
    worker.postMessage(message);
  });
  return { promise, cancel: () => cancel() };
}
