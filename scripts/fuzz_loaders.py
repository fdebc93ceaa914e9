"""Long fuzz run of the loaders and chunkers (the README's Reliability figures).

    python scripts/fuzz_loaders.py --inputs 10000 [--seed 1] [--per-input-timeout 30]

Draws inputs from ``tests/reliability/fuzz_inputs.py`` with hypothesis
(random bytes, text in mixed encodings with NULs, deeply nested and huge
Markdown, very long lines, mutated real and generated PDFs) and checks each:
a Document whose passages slice its text exactly, or a typed DocumentError
with a one-line message. Prints inputs tried, outcomes, crashes, and the
slowest inputs; exit status 1 when anything crashed.
"""

from __future__ import annotations

import argparse
import collections
import json
import signal
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, Phase, given, seed, settings

from tests.reliability import fuzz_inputs as fz


class _Slow(Exception):
    pass


def _alarm(signum, frame):
    raise _Slow()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--inputs", type=int, default=10000, help="inputs to generate (default 10000)")
    parser.add_argument("--seed", type=int, default=1, help="hypothesis seed (default 1)")
    parser.add_argument(
        "--per-input-timeout", type=float, default=30.0, help="seconds before an input counts as a hang"
    )
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    args = parser.parse_args(argv)

    outcomes: collections.Counter[str] = collections.Counter()
    crashes: list[str] = []
    slowest: list[tuple[float, str, int]] = []
    hangs = 0
    started = time.perf_counter()
    signal.signal(signal.SIGALRM, _alarm)

    @seed(args.seed)
    @settings(
        max_examples=args.inputs,
        deadline=None,
        database=None,
        phases=[Phase.generate],  # nothing raises, so there is nothing to shrink
        suppress_health_check=list(HealthCheck),
    )
    @given(fz.any_input)
    def run(case: tuple[bytes, str]) -> None:
        nonlocal hangs
        data, name = case
        t0 = time.perf_counter()
        signal.setitimer(signal.ITIMER_REAL, args.per_input_timeout)
        try:
            outcomes[fz.check(data, name)] += 1
        except _Slow:
            hangs += 1
            outcomes["hang"] += 1
        except Exception as exc:  # the figure we are after: anything not typed is a crash
            outcomes["crash"] += 1
            crashes.append(
                f"{name} ({len(data)} bytes): {type(exc).__name__}: {exc}\n{traceback.format_exc()}"
            )
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        elapsed = time.perf_counter() - t0
        slowest.append((elapsed, name, len(data)))
        slowest.sort(reverse=True)
        del slowest[5:]
        done = sum(outcomes.values())
        if done % 500 == 0:
            print(
                f"  {done} inputs, {outcomes['crash']} crashes, {time.perf_counter() - started:.0f} s",
                flush=True,
            )

    run()
    tried = sum(outcomes.values())
    typed = {k: v for k, v in sorted(outcomes.items()) if k not in ("ok", "crash", "hang")}
    figures = {
        "inputs_tried": tried,
        "documents": outcomes["ok"],
        "typed_errors": sum(typed.values()),
        "typed_errors_by_class": typed,
        "crashes": outcomes["crash"],
        "hangs": hangs,
        "per_input_timeout_s": args.per_input_timeout,
        "seed": args.seed,
        "seconds": round(time.perf_counter() - started, 1),
        "slowest": [{"seconds": round(s, 2), "name": n, "bytes": b} for s, n, b in slowest],
    }
    print(f"inputs tried: {tried}")
    print(f"documents loaded and chunked: {outcomes['ok']}")
    print(f"typed errors: {figures['typed_errors']} ({', '.join(f'{k} {v}' for k, v in typed.items())})")
    print(f"crashes (unhandled exceptions or broken passages): {outcomes['crash']}")
    print(f"hangs (over {args.per_input_timeout:g} s): {hangs}")
    print(f"time: {figures['seconds']} s; slowest: {figures['slowest'][:3]}")
    for text in crashes[:5]:
        print("---", text, sep="\n")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 1 if outcomes["crash"] or hangs else 0


if __name__ == "__main__":
    sys.exit(main())
