"""nDCG@10 of bm25, dense and hybrid per group with a cut passage's embedded
text preceded by nothing, its document's name, or its name and heading path
(``records.CONTEXT_HEADERS``; docs/decisions.md, "Passage context").

Whole-document passages (the BEIR collections) are embedded unchanged by
every setting, so only the demo (by type) and dev-shared are scored. A
setting other than "off" embeds every passage of those collections again
(about 20 minutes for dev-shared on a loaded machine).

    python scripts/context_header_study.py off|name|name+path [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
import types
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from fusion_cv import load_all  # noqa: E402

from ragcore import records  # noqa: E402
from ragcore.corpus import default_library  # noqa: E402
from ragcore.retrieval import Retriever  # noqa: E402

MODES = ("bm25", "dense", "hybrid")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("setting", choices=["off", "name", "name+path"])
    parser.add_argument("--collections", default="demo,dev-shared")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    records.CONTEXT_HEADERS = args.setting
    library = default_library()
    out: dict[str, dict[str, float]] = {}
    for coll in load_all(args.collections.split(","), ROOT, ROOT / ".." / "shared", library):
        retriever = Retriever(types.SimpleNamespace(passages=coll.passages), vector_cache=library)
        retriever.ensure_dense()
        texts = {qid: text for qid, text, _ in coll.questions}
        for group, qids in coll.groups.items():
            out[group] = {}
            for mode in MODES:
                scores = []
                for qid in qids:
                    hits = retriever.search(texts[qid], mode, 10).hits
                    scores.append(coll.ndcg(qid, [(retriever.row_of(h.passage), h.score) for h in hits]))
                out[group][mode] = float(np.mean(scores))
            print(group, len(qids), {m: round(v, 4) for m, v in out[group].items()}, flush=True)
    if args.out:
        args.out.write_text(
            json.dumps({"setting": args.setting, "ndcg@10": out}, indent=1) + "\n", encoding="utf-8"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
