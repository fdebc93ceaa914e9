"""The app's background warm-up (#18 cold start): the demo and its indexes
first; the modules to import ahead once the first page is drawn; the model
only after a second run (the first question's), so the first page and the
first example answer get the CPU before it."""

from __future__ import annotations

import threading

from ragcore.services import DEMO_COLLECTION
from ragcore.services import workspace as workspace_module
from tests.services.workspaces import demo_workspace
from tests.test_service import HashEmbedder

WAIT_S = 30


def _watched(tmp_path, monkeypatch):
    """A demo workspace whose warm-up steps are noted, with long waits (the test sets the events)."""
    monkeypatch.setattr(workspace_module, "DRAW_WAIT_S", 60.0)
    monkeypatch.setattr(workspace_module, "MODEL_WAIT_S", 60.0)
    ws = demo_workspace(tmp_path, monkeypatch, HashEmbedder())
    steps: list[str] = []
    dense_ready, imported, loaded = threading.Event(), threading.Event(), threading.Event()
    ensure_dense = ws.indexes.ensure_dense

    def noted_dense(collection, progress=None):
        done = ensure_dense(collection, progress)
        steps.append("dense")
        dense_ready.set()
        return done

    def noted_import(name):
        steps.append(f"import {name}")
        imported.set()

    def noted_load():
        steps.append("model")
        loaded.set()

    monkeypatch.setattr(ws.indexes, "ensure_dense", noted_dense)
    monkeypatch.setattr(workspace_module.importlib, "import_module", noted_import)
    monkeypatch.setattr(ws.indexes, "load_model", noted_load)
    return ws, steps, (dense_ready, imported, loaded)


def test_the_model_loads_after_the_first_question_and_imports_after_the_first_page(tmp_path, monkeypatch):
    ws, steps, (dense_ready, imported, loaded) = _watched(tmp_path, monkeypatch)
    thread = ws.start_warm_up(import_ahead=("pandas",))
    assert dense_ready.wait(WAIT_S)
    assert ws.indexes.dense_ready(DEMO_COLLECTION)
    assert not imported.wait(0.3) and steps == ["dense"]  # waits for the first page
    ws.page_drawn()
    assert imported.wait(WAIT_S)
    assert not loaded.wait(0.3) and steps == ["dense", "import pandas"]  # waits for a second run
    ws.page_drawn()
    thread.join(WAIT_S)
    assert steps == ["dense", "import pandas", "model"] and ws.warm_error is None


def test_without_a_second_run_the_model_loads_after_the_wait(tmp_path, monkeypatch):
    ws, steps, (_, _, loaded) = _watched(tmp_path, monkeypatch)
    monkeypatch.setattr(workspace_module, "DRAW_WAIT_S", 0.1)
    monkeypatch.setattr(workspace_module, "MODEL_WAIT_S", 0.1)
    ws.start_warm_up().join(WAIT_S)
    assert steps == ["dense", "model"] and loaded.is_set()
