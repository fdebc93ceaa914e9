"""Generation evaluation for the Evaluation page: stored generation runs,
blind rating, and a new run over the open collection with its cost shown
first (``ragcore.evaluation.generation*`` does the work)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ragcore.answer.calls import SpendTracker
from ragcore.answer.local import LOCAL_LABEL
from ragcore.answer.models import ModelConfig, explain_no_model, find_model
from ragcore.evaluation.generation import (
    GenerationError,
    GenerationRun,
    GenItem,
    SentPassage,
    StoredGeneration,
    checks_visible,
    load_run,
    load_topics,
    rate,
    reveal,
    save_run,
    stored_generation_runs,
)
from ragcore.evaluation.generation_figures import GenerationFigures, generation_figures
from ragcore.evaluation.generation_run import GenerationPlan, plan_generation, run_plan

from .asking import Asking
from .common import EVAL_DIR
from .evaluation import Evaluations
from .review import Review


@dataclass(frozen=True)
class ItemView:
    """One item as the rater sees it; ``checks`` is empty until it may be shown."""

    item: GenItem
    passages: list[SentPassage]  # the passages the item cites
    rated: bool
    checks_shown: bool


__all__ = ["LOCAL_LABEL", "GenerationEvaluations", "GenerationFigures", "GenerationRun", "ItemView"]


class GenerationEvaluations:
    """Generation runs in the results folder of ``evaluations``."""

    def __init__(
        self, evaluations: Evaluations, asking: Asking, review: Review, eval_dir: Path = EVAL_DIR
    ) -> None:
        self.evaluations = evaluations
        self.asking = asking
        self.review = review
        self.eval_dir = Path(eval_dir)
        self._write_lock = threading.Lock()  # a rating rewrites the run file: one writer at a time

    @property
    def results_dir(self) -> Path:
        return self.evaluations.results_dir

    def runs(self) -> list[StoredGeneration]:
        return stored_generation_runs(self.results_dir)

    def topic_files(self) -> list[Path]:
        return sorted(self.eval_dir.glob("*.geneval.json"))

    def _path(self, path: Path | str) -> Path:
        path = Path(path)
        if path.resolve().parent != self.results_dir.resolve():
            raise GenerationError(f"{path.name}: not a stored run")
        return path

    def load(self, path: Path | str) -> GenerationRun:
        return load_run(self._path(path))

    def download(self, path: Path | str) -> bytes:
        return self._path(path).read_bytes()

    def figures(self, run: GenerationRun) -> GenerationFigures:
        return generation_figures(run)

    def view(self, run: GenerationRun, item_id: str) -> ItemView:
        item = run.item(item_id)
        sent = run.call_of(item).passages
        cited = [p for p in sent if p.n in item.citations]
        return ItemView(item, cited, item_id in run.ratings, checks_visible(run, item_id))

    def queue(self, run: GenerationRun) -> list[str]:
        """Item ids, unrated first, in run order."""
        return sorted((it.id for it in run.items), key=lambda i: i in run.ratings)

    def rate(
        self, path: Path | str, item_id: str, faithful: bool, useful: int, note: str = ""
    ) -> GenerationRun:
        with self._write_lock:
            run = self.load(path)
            save_run(rate(run, item_id, faithful, useful, note), self._path(path))
        return run

    def reveal(self, path: Path | str, item_id: str) -> GenerationRun:
        with self._write_lock:
            run = self.load(path)
            save_run(reveal(run, item_id), self._path(path))
        return run

    # ------------------------------------------------------------ new runs

    @staticmethod
    def model(env: Mapping[str, str]) -> tuple[ModelConfig | None, str]:
        found = find_model(env)
        return found, "" if found else explain_no_model(env)

    def spend_tracker(self, session: str | None) -> SpendTracker:
        return self.review.spend_tracker(session)

    def plan(
        self, topics: Path, collection: str, config: ModelConfig, *, mode: str = "hybrid", k: int = 8
    ) -> GenerationPlan:
        """Every prompt of the topic file over ``collection``, and the worst-case
        cost; nothing is sent."""
        spec = load_topics(topics)

        def search(text: str):
            return self.asking.search(collection, text, mode, k)[0]

        return plan_generation(spec, search, config, topics_file=topics.name, mode=mode, k=k)

    def start(
        self,
        plan: GenerationPlan,
        config: ModelConfig,
        spend: SpendTracker,
        *,
        session: str | None = None,
        progress: Callable[[str], None] | None = None,
    ) -> Path:
        """Run the plan under ``spend`` (refused when its estimate does not fit),
        log its calls in ``session``'s AI log, and store it."""
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        name = f"{plan.spec.name}-{stamp}"
        run = run_plan(
            plan,
            config,
            spend,
            name=name,
            corpus=plan.spec.corpus,
            local=config.on_this_machine,
            log=self.review.ai_log(session),
            progress=progress,
        )
        return save_run(run, self.results_dir / f"{name}.json")


def run_json(run: GenerationRun) -> str:
    return json.dumps(run.to_json(), ensure_ascii=False, indent=1)
