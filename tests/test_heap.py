"""The build's long-lived objects are frozen out of the collector's scans for the build, and handed back after."""
from __future__ import annotations

import gc
import runpy
import subprocess
import sys
import textwrap
from pathlib import Path

from miles101 import heap
from miles101.sphinx_ext import SETUPS

ROOT = Path(__file__).resolve().parent.parent


def test_the_loaded_heap_is_frozen_for_the_build_and_handed_back() -> None:
    gc.unfreeze()
    kept = [[] for _ in range(3)]  # tracked by the collector, as containers are  # something alive before builder-inited
    try:
        heap.freeze_imported(None, None)  # type: ignore[arg-type]
        assert gc.get_freeze_count() >= len(kept)
        more = [[] for _ in range(3)]  # loaded between config-inited and builder-inited
        frozen = gc.get_freeze_count()
        heap.freeze_loaded(None)  # type: ignore[arg-type]
        assert gc.get_freeze_count() >= frozen + len(more)
    finally:
        heap.unfreeze(None, None)  # type: ignore[arg-type]
    assert gc.get_freeze_count() == 0, "build-finished must hand every frozen object back to the collector"


def test_the_project_connects_both_ends_and_the_extension_does_not() -> None:
    """A process setting: conf.py's setup() connects it (issue 61 item 6); no component of the extension does."""
    assert not any(setup.__module__ == heap.__name__ for setup in SETUPS)

    class App:
        def __init__(self) -> None:
            self.connected: list[tuple[str, object, int]] = []

        def connect(self, event: str, handler: object, priority: int = 500) -> None:
            self.connected.append((event, handler, priority))

        def add_config_value(self, *args: object, **kwargs: object) -> None:
            pass

    app = App()
    runpy.run_path(str(ROOT / "conf.py"))["setup"](app)
    events = {event: (handler, priority) for event, handler, priority in app.connected}
    assert events["config-inited"] == (heap.freeze_imported, 0)
    assert events["builder-inited"] == (heap.freeze_loaded, 900)
    assert events["build-finished"] == (heap.unfreeze, 900)
    # builder-inited at 900 runs after the capture is taken in (loading connects it at 100).
    from miles101.sphinx_ext import loading
    probe = App()
    loading.setup_loading(probe)  # type: ignore[arg-type]
    assert all(p < 900 for e, _h, p in probe.connected if e == "builder-inited")


def test_at_exit_the_heap_is_frozen_once_a_process() -> None:
    """The exit hook runs once however many builds set the extension up, and leaves everything frozen for the
    interpreter's last collections (an exit hook registered earlier runs after it and sees that)."""
    probe = textwrap.dedent("""
        import atexit, gc
        from miles101 import heap

        class App:
            def connect(self, *args, **kwargs): pass

        calls, freeze = [], gc.freeze
        gc.freeze = lambda: calls.append(1) or freeze()
        atexit.register(lambda: print("freezes at exit:", len(calls), "frozen:", gc.get_freeze_count() > 0))
        heap.setup_heap(App()); heap.setup_heap(App())
    """)
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "freezes at exit: 1 frozen: True", out
