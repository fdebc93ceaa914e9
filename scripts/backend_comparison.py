"""nDCG@10 of the embedded and the Milvus backend, side by side.

Runs ``python -m ragcore eval`` on each collection once per backend (same
code, same library cache, same scoring) and prints the README's table.

    python scripts/backend_comparison.py [--milvus milvus:PATH] [--out DIR]
        [--collections demo,cranfield,cisi,vaswani]

``demo`` is ``eval/demo.gold.json``; the others are BEIR folders under
``../shared/benchmarks``. Each run's JSON is kept in ``--out``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / ".." / "shared" / "benchmarks"
RANKERS = ("bm25", "dense", "hybrid")


def source_args(name: str) -> list[str]:
    if name == "demo":
        return ["--gold", str(ROOT / "eval" / "demo.gold.json")]
    return ["--beir", str(BENCHMARKS / name)]


def run_eval(name: str, backend: str, out: Path) -> dict:
    path = out / f"{name}-{backend.split(':')[0]}.json"
    cmd = [sys.executable, "-m", "ragcore", "eval", *source_args(name), "--rankers", ",".join(RANKERS)]
    cmd += ["--backend", backend, "--quiet", "--out", str(path)]
    subprocess.run(cmd, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    return json.loads(path.read_text(encoding="utf-8"))


def ndcg(run: dict, ranker: str) -> str:
    m = run["rankers"][ranker]["metrics"]["ndcg@10"]
    return f"{m['mean']:.3f} [{m['ci_low']:.3f}, {m['ci_high']:.3f}]"


def judged(run: dict) -> int:
    """How many questions the run scored (those with judgements)."""
    first = next(iter(run["rankers"].values()))
    return int(first["metrics"]["ndcg@10"].get("n", len(first.get("per_question", []))))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--milvus", default=None, help="Milvus backend (default: a temporary Lite file)")
    parser.add_argument("--out", type=Path, default=None, help="keep the runs' JSON here")
    parser.add_argument("--collections", default="demo,cranfield,cisi,vaswani")
    args = parser.parse_args()
    scratch = tempfile.TemporaryDirectory(prefix="ragcore-backends-")
    out = args.out or Path(scratch.name)
    out.mkdir(parents=True, exist_ok=True)
    milvus = args.milvus or f"milvus:{scratch.name}/index.db"
    print(
        f"{time.strftime('%Y-%m-%d')}  python scripts/backend_comparison.py {' '.join(sys.argv[1:])}".rstrip()
    )
    print("| collection | ranker | embedded nDCG@10 | Milvus nDCG@10 |")
    print("|---|---|---|---|")
    for name in args.collections.split(","):
        embedded, on_milvus = run_eval(name, "embedded", out), run_eval(name, milvus, out)
        label = f"{name} ({judged(embedded)} judged questions)"
        for ranker in RANKERS:
            print(
                f"| {label} | {ranker} | {ndcg(embedded, ranker)} | {ndcg(on_milvus, ranker)} |", flush=True
            )
            label = name
        fusion = [run["settings"]["index"].get("fusion", {}).get("method") for run in (embedded, on_milvus)]
        print(f"<!-- {name}: hybrid fusion embedded={fusion[0]} milvus={fusion[1]} -->", flush=True)
    scratch.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
