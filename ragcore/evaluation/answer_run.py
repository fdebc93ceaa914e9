"""``eval --answers``: every gold-set question through the ``ask`` path, scored.

The answers come from the code the ``ask`` command runs (same corpus
loading, shipped vectors, retriever, default mode, ``k`` and lens), so the
figures describe what a user reads. Without ``--model`` the answer is the
extractive one (model settings are removed from the environment); with
``--model NAME`` it is that LiteLLM model's answer.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..records import Answer, Document
from ..retrieval.protocols import ASK_K as ASK_K  # the ``ask`` command's default --k
from . import statistics as st
from .answer_tables import METRICS, metric
from .answers import ScoredAnswer, answers_block, score_answer
from .goldset import GoldSet, resolve_spans

Progress = Callable[[str], None]
Ask = Callable[[str], Answer]
# Settings that would make the ask path call a model.
_MODEL_SETTINGS = ("RAGCORE_LLM_MODEL",)


def answer_env(model: str | None, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of the answers: a model named, or none (extractive)."""
    env = dict(os.environ if env is None else env)
    if model is None:
        env["RAGCORE_LLM_MODEL"] = "off"
    else:
        env["RAGCORE_LLM_MODEL"] = model
    return env


def ask_path(
    corpus_dir: Path,
    env: Mapping[str, str],
    completion: Callable[..., Any] | None = None,
    curated: bool = False,
) -> tuple[Ask, Mapping[str, Document]]:
    """A function answering a question as ``python -m ragcore ask QUESTION
    --corpus DIR`` does, and the corpus's documents. The curated layer is off
    unless ``curated`` (then a pinned answer replaces the computed one when the
    question matches, as on the Ask page)."""
    from ..answer.pipeline import answer_question
    from ..cli import make_retriever, open_corpus

    args = argparse.Namespace(corpus=str(corpus_dir), library=None, collection="uploads", chunking="auto")
    corpus, library = open_corpus(args)
    retriever = make_retriever(corpus, library)

    pinned = _curated_layer(corpus_dir, corpus.documents) if curated else None

    def ask(question: str) -> Answer:
        if pinned is not None:
            from ..curated import curated_answer, match_question
            from ..retrieval.embedding import get_embedder

            match = match_question(question, pinned, get_embedder())
            if match is not None:
                return curated_answer(match)
        found = retriever.search(question, None, ASK_K)
        hits = getattr(found, "hits", found)
        # as ``ask`` does: the lens reads every passage of the collection that
        # mentions the question's subject, not only the retrieved ones
        return answer_question(
            question,
            hits,
            lens="auto",
            env=env,
            completion=completion,
            documents=corpus.documents,
            passages=corpus.passages,
        ).answer

    return ask, corpus.documents


def _curated_layer(corpus_dir: Path, documents: Mapping[str, Document]):
    """The corpus's curated layer (``DIR.curated.json`` beside the folder), or None."""
    from ..curated import curated_path_for, load_curated

    path = curated_path_for(corpus_dir)
    return load_curated(path, documents) if path.is_file() else None


def score_goldset(
    gold: GoldSet, ask: Ask, documents: Mapping[str, Document], progress: Progress | None = None
) -> list[ScoredAnswer]:
    """Ask every question with an answer key and score its answer."""
    keyed = [q for q in gold.questions if q.answer is not None]
    spans = {q.id: q.spans for q in resolve_spans(gold, documents)}  # for evidence precision
    scored = []
    for i, q in enumerate(keyed, 1):
        if progress and (i % 20 == 0 or i == len(keyed)):
            progress(f"answers: {i} of {len(keyed)} questions")
        scored.append(score_answer(q.id, q.type, q.text, q.answer, ask(q.text), documents, spans[q.id]))
    return scored


def run_answers(
    gold: GoldSet,
    *,
    model: str | None = None,
    completion: Callable[..., Any] | None = None,
    resamples: int = st.RESAMPLES,
    seed: int = st.SEED,
    progress: Progress | None = None,
    curated: bool = False,
) -> dict:
    """The ``answers`` block of a run over ``gold`` (curated layer off unless ``curated``)."""
    env = answer_env(model)
    ask, documents = ask_path(gold.corpus, env, completion, curated)
    block = answers_block(score_goldset(gold, ask, documents, progress), resamples, seed)
    block["settings"] = {
        "answer": "model" if model else "extractive",
        "model": model,
        "lens": "auto",
        "k": ASK_K,
        "curated": curated,
    }
    return block


# ------------------------------------------------------------------ table

_ROWS = METRICS  # one list of the answer metrics and their names, shared with the page tables


def _fmt(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def format_answers(block: Mapping[str, Any]) -> str:
    """The answer metrics as a terminal table."""
    lines = [
        f"answers ({block.get('settings', {}).get('answer', 'extractive')}), {block['questions']} questions"
    ]
    width = max(len(label) for _, label in _ROWS)
    for key, label in _ROWS:
        m = metric(block, key)
        digits = 1 if key == "words" else 3
        row = f"  {label:<{width}}  {_fmt(m['mean'], digits)} [{_fmt(m['ci_low'], digits)}, {_fmt(m['ci_high'], digits)}]  n={m['n']}"
        if key == "words":
            row += f"  median {_fmt(m.get('median'), 1)}"
        lines.append(row)
    lines.append(f"  {'false contradictions':<{width}}  {block['false_contradictions']}")
    lines.append(f"  {'duplicate sentences':<{width}}  {block['duplicate_sentences']}")
    if "off_evidence_sentences" in block:
        lines.append(f"  {'sentences off evidence':<{width}}  {block['off_evidence_sentences']}")
        lines.append(f"  {'sentences unjudged':<{width}}  {block['unjudged_sentences']}")
    by_type = block.get("by_type", {})
    if by_type:
        lines.append("")
        lines.append("by question type: fact recall / complete / abstention / words (median)")
        for t, b in by_type.items():
            lines.append(
                f"  {t:<14} n={b['questions']:<3} {_fmt(b['fact_recall']['mean'])} / {_fmt(b['complete']['mean'])}"
                f" / {_fmt(b['abstention']['mean'])} / {_fmt(b['words'].get('median'), 1)}"
            )
    return "\n".join(lines) + "\n"
