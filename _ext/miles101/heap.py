"""The build's long-lived objects, kept out of the garbage collector's scans while the pages are built.

A process setting, so the project sets it where it owns the process: conf.py's `setup(app)` calls
`setup_heap` (the extension leaves the collector alone; it shares its process with every other extension).

Once the configuration is read, Sphinx has imported every extension; by `builder-inited` it has also
unpickled the environment, and `loading` has taken in the capture: hundreds of thousands of objects
that live until the build ends. CPython's collector walks every one of them at each full collection; in
an incremental build of this book that was about 0.14 s of CPU, against 0.07 s for the same pages
without the extension (benchmarks/README.md). `gc.freeze()` moves them to a permanent generation that
every later collection ignores (as Python's documentation of `gc.freeze` says); `gc.unfreeze()` at
`build-finished` hands them back, so a process that builds again (sphinx-autobuild, the tests) collects
them as before.

At the interpreter's exit everything alive is frozen once more (an `atexit` hook, one per process): the
full collections CPython runs while it shuts down would walk the whole heap to free memory the operating
system takes back anyway: a value-change build of this book 1.37 → 1.01 s of CPU, plain Sphinx's one-word
edit 1.06 → 0.86 s (benchmarks/README.md, "The exit freeze"; the benchmark's baseline gets the same hook). Python does not
promise that `__del__` runs at exit; Sphinx closes its warning file itself, and `logging` flushes its
handlers in an exit hook of its own.
"""
from __future__ import annotations

import atexit
import gc
from typing import Any

#: Sphinx's application and config, as Sphinx passes them (the core imports no Sphinx, tests/test_layers.py).
Sphinx = Config = Any


def freeze_imported(app: Sphinx, config: Config) -> None:
    """Every module and the configuration: out of the collector's way before the environment is loaded."""
    gc.freeze()


def freeze_loaded(app: Sphinx) -> None:
    """The environment, the capture and the components' set-up, once the builder is ready."""
    gc.freeze()


def unfreeze(app: Sphinx, exception: Exception | None) -> None:
    """The frozen objects back under the collector (a later build in this process starts as the first did)."""
    gc.unfreeze()


def skip_final_collection() -> None:
    """At exit: everything alive out of the collections the interpreter runs while it shuts down."""
    gc.freeze()


def setup_heap(app: Sphinx) -> None:
    """Connect the freezes to a build (conf.py's `setup`); the exit hook once a process."""
    atexit.unregister(skip_final_collection)  # once per process, however many builds it runs
    atexit.register(skip_final_collection)
    app.connect("config-inited", freeze_imported, priority=0)
    app.connect("builder-inited", freeze_loaded, priority=900)  # after the capture and the components' set-up
    app.connect("build-finished", unfreeze, priority=900)
