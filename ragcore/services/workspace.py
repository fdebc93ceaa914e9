"""The app's services over one library, composed once per process.

A page takes the service it needs from the :class:`Workspace` (``ws.asking``,
``ws.docs``, ...) and renders what it returns; the Workspace itself holds no
behaviour beyond wiring and the start-up warm-up.
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .. import config
from ..startup_trace import mark
from ..store import Library
from .asking import Asking
from .collections import Collections
from .common import DEMO_COLLECTION, DEMO_DIR, DEMO_VECTORS
from .curation import Curation
from .documents import Documents
from .evaluation import Evaluations
from .explain import Explain
from .generation import GenerationEvaluations
from .indexes import Indexes
from .originals import Originals
from .review import Review

if TYPE_CHECKING:
    from ..retrieval.protocols import EmbedderLike, RerankerLike

log = logging.getLogger(__name__)
# The warm-up imports ahead once the app's first page is drawn (or after
# DRAW_WAIT_S without: a page that failed), and loads the model once a second
# run has ended (as a rule the first question's, which needs no model for an
# example) or MODEL_WAIT_S after the first: the first page and the first
# answer get the CPU before the model (#18 cold start); a question typed
# sooner loads the model itself.
DRAW_WAIT_S = 5.0
MODEL_WAIT_S = 3.0


class Workspace:
    """One library (``RAGCORE_HOME``) and the services over it.

    Thread-safe enough for Streamlit: sessions share one Workspace (a cached
    resource); the index cache is guarded by a lock and the library gives
    each thread its own SQLite connection.
    """

    def __init__(
        self,
        home: Path | str | None = None,
        *,
        demo_dir: Path = DEMO_DIR,
        demo_vectors: Path = DEMO_VECTORS,
        results_dir: Path | None = None,
        embedder: EmbedderLike | None = None,
        reranker: RerankerLike | None = None,
    ) -> None:
        self.home = Path(home) if home is not None else config.settings().home
        self.library = Library(self.home)
        self.demo_dir = demo_dir
        self.demo_vectors = demo_vectors
        self.indexes = Indexes(self.library, demo_vectors, embedder, reranker)
        originals = Originals(self.library, self.home, demo_dir)
        self.collections = Collections(self.library, self.indexes, originals, demo_dir)
        self.docs = Documents(self.library, self.indexes, self.collections, originals)
        self.curation = Curation(self.home, self.indexes, self.collections, demo_dir)
        self.asking = Asking(self.library, self.indexes, self.curation)
        self.review = Review(self.library, self.asking)
        self.evaluation = Evaluations(self.library, self.indexes, results_dir)
        self.explain = Explain(self.library, self.indexes, self.asking)
        self.generation = GenerationEvaluations(self.evaluation, self.asking, self.review)
        self.warm_thread: threading.Thread | None = None  # the background warm-up, once started
        self.warm_error: str | None = None  # why the background warm-up failed, if it did
        self._warm_lock = threading.Lock()
        self._runs = 0  # runs of the app's page ended (page_drawn)
        self._drawn = threading.Event()  # the first ended
        self._drawn_again = threading.Event()  # a second ended
        self.collections.expire_sessions()  # private collections of sessions that ended while no app ran

    def warm_up(self, collection: str = DEMO_COLLECTION, import_ahead: Sequence[str] = ()) -> None:
        """Load the demo and its indexes; once the first page is drawn
        (``page_drawn``) import ``import_ahead`` (modules the first answer's
        page needs); then load the embedding model (see ``MODEL_WAIT_S``).
        Run in a background thread at start-up: the demo's example answers
        need no model (``retrieval.lazy_embedder``), and a typed question
        finds it loaded."""
        self.collections.ensure_demo()
        mark("warm-up: demo loaded")
        self.indexes.ensure_dense(collection)
        mark("warm-up: dense index ready")
        self._drawn.wait(DRAW_WAIT_S)
        for name in import_ahead:
            importlib.import_module(name)
        mark("warm-up: imported ahead")
        self._drawn_again.wait(MODEL_WAIT_S)
        self.indexes.load_model()

    def page_drawn(self) -> None:
        """A run of the app's page ended: after the first, the warm-up imports
        ahead; after the second (the first question's, as a rule), or
        ``MODEL_WAIT_S`` after the first, it loads the model."""
        with self._warm_lock:
            self._runs += 1
            (self._drawn if self._runs == 1 else self._drawn_again).set()

    def start_warm_up(self, import_ahead: Sequence[str] = ()) -> threading.Thread:
        """Warm up in a background thread, once per Workspace. A failure is
        logged with its traceback and kept in ``warm_error`` for the app to
        show; the first question then loads what it needs itself."""
        with self._warm_lock:
            if self.warm_thread is None:
                self.warm_thread = threading.Thread(
                    target=self._warm, args=(tuple(import_ahead),), name="ragcore-warm-up", daemon=True
                )
                self.warm_thread.start()
            return self.warm_thread

    def _warm(self, import_ahead: tuple[str, ...]) -> None:
        try:
            self.warm_up(import_ahead=import_ahead)
        except Exception as exc:  # a background thread has no caller to raise to
            log.exception("background warm-up failed")
            self.warm_error = f"{type(exc).__name__}: {exc}"
