"""App cold start and memory under use, measured in Chromium (#18).

    python scripts/cold_start.py [--home DIR] [--sessions 8 --questions 100] [--runs N] [--floor]
                                 [--trace] [--no-bytecode-cache] [--json]

1. Cold start: Chromium (``/usr/bin/chromium``, Python playwright) is
   launched first; the clock starts when ``streamlit run app.py`` is
   spawned as a fresh process and stops when the first demo answer (its
   "Answer" heading) is on the page, after clicking the first example
   question. ``--home`` gives a library home (e.g. a warm one, as after a
   restart); without it an empty temporary home is used (the first start
   ever: the demo is loaded and indexed, its shipped vectors seeded).
2. The RSS of the app process with the demo loaded: at that answer, and
   once it has settled (the warm-up loads the model after the first answer).
3. With ``--questions N`` (> 0): ``--sessions`` browser contexts (separate
   Streamlit sessions) ask N questions round-robin, taken from the demo
   gold set; the app's RSS is printed before and after, and its growth.

The app runs with Python's bytecode cache on, as Python runs by default (a
PYTHONDONTWRITEBYTECODE of the caller is dropped; ``--no-bytecode-cache``
keeps it, and then every start compiles the project's modules from source).

``--trace`` adds the app's start-up marks (``ragcore.startup_trace``) and
the browser's steps, each in seconds since the spawn.

``--runs N`` repeats the measurement in N fresh server processes (a new
empty home for each, unless ``--home``) and adds the median. ``--floor``
times a one-line Streamlit app the same way (spawn to its text on the page):
the part of the cold start that is Streamlit's own on this machine.

Chromium must exist at ``/usr/bin/chromium`` (or ``RAGCORE_CHROMIUM``); the
script never downloads a browser.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ragcore import startup_trace  # noqa: E402 - after the repository is on the path
from ragcore.app_server import running_app  # noqa: E402
from ragcore.services.workspace import MODEL_WAIT_S  # noqa: E402

CHROMIUM = Path(os.environ.get("RAGCORE_CHROMIUM", "/usr/bin/chromium"))
FIRST_EXAMPLE = "Is our pricing consistent?"  # the Ask page's first example question
TIMEOUT_MS = 600_000


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def settled_rss_mb(pid: int, timeout_s: float = 90.0, still_s: float = MODEL_WAIT_S + 3.0) -> float:
    """The RSS once it has stayed within 1 MB for ``still_s`` (the app's
    warm-up loads the model after the first answer, up to MODEL_WAIT_S
    later), or after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    last, since = rss_mb(pid), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.25)
        now = rss_mb(pid)
        if abs(now - last) > 1.0:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= still_s:
            break
    return rss_mb(pid)


def cpu_s(pid: int) -> float:
    """CPU seconds (user + system) used so far by process ``pid`` and its
    waited-for children: a figure of the work done, steadier than wall time
    on a loaded machine."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return sum(int(v) for v in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def app_env(home: Path, bytecode_cache: bool = True) -> dict[str, str]:
    """The environment without API keys or a model, so answers are extractive.
    With ``bytecode_cache`` Python keeps compiled modules (``__pycache__``) as
    it does by default, so a start after the first of a checkout reads them:
    a PYTHONDONTWRITEBYTECODE set in the caller's environment is dropped (in
    this project's sandbox it is set, and every start then compiles ragcore's
    modules from source: about 0.3 s of CPU)."""
    drop = {"RAGCORE_LLM_MODEL"} | ({"PYTHONDONTWRITEBYTECODE"} if bytecode_cache else set())
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k not in drop}
    env.update(RAGCORE_HOME=str(home), PYTHONPATH=str(ROOT))
    return env


def first_answer(tab, url: str, steps: dict[str, float] | None = None) -> None:
    """Open the app, click the first example, wait for its answer; with
    ``steps``, the wall-clock time of each browser step is put in it."""
    tab.goto(url)
    example = tab.get_by_role("radio", name=FIRST_EXAMPLE)
    example.wait_for(timeout=TIMEOUT_MS)
    if steps is not None:
        steps["browser: example visible"] = time.time()
    example.click(timeout=TIMEOUT_MS)
    tab.get_by_role("heading", name="Answer", exact=True).wait_for(timeout=TIMEOUT_MS)
    if steps is not None:
        steps["browser: answer visible"] = time.time()


def ask(tab, question: str) -> None:
    """Ask and wait until the app has finished the rerun."""
    tab.get_by_label("Question").fill(question)
    tab.get_by_role("button", name="Ask", exact=True).click()
    running = tab.get_by_test_id("stStatusWidget")
    try:
        running.wait_for(state="visible", timeout=3000)
    except Exception:  # a fast rerun may end before the widget shows
        pass
    running.wait_for(state="hidden", timeout=TIMEOUT_MS)
    # .first: while a rerun replaces the page, the old heading and the new one can both be there
    tab.get_by_role("heading", name="Retrieved passages").first.wait_for(timeout=TIMEOUT_MS)


def gold_questions() -> list[str]:
    data = json.loads((ROOT / "eval" / "demo.gold.json").read_text(encoding="utf-8"))
    return [q["text"] for q in data["questions"]]


def growth(browser, url: str, pid: int, sessions: int, questions: int) -> dict[str, float]:
    """RSS before and after ``questions`` asked round-robin from ``sessions`` contexts."""
    contexts = [browser.new_context(viewport={"width": 1400, "height": 900}) for _ in range(sessions)]
    tabs = [c.new_page() for c in contexts]
    for tab in tabs:  # every session opened and answered once before the "before" figure
        first_answer(tab, url)
    before = settled_rss_mb(pid)  # with the model loaded
    pool = gold_questions()
    started = time.perf_counter()
    failed = 0
    for i in range(questions):
        try:
            ask(tabs[i % sessions], pool[i % len(pool)])
        except Exception as exc:  # one slow rerun must not lose the whole measurement
            failed += 1
            print(f"question {i + 1}: {type(exc).__name__}: {str(exc)[:200]}", file=sys.stderr)
    after = rss_mb(pid)
    for c in contexts:
        c.close()
    return {
        "sessions": sessions,
        "questions": questions,
        "questions_failed": failed,
        "rss_before_mb": round(before, 1),
        "rss_after_mb": round(after, 1),
        "rss_growth_mb": round(after - before, 1),
        "questions_s": round(time.perf_counter() - started, 1),
    }


FLOOR_TEXT = "ragcore cold-start floor"


def floor_app(home: Path) -> Path:
    """A one-line Streamlit app, written into ``home``."""
    script = home / "floor_app.py"
    script.write_text(f"import streamlit as st\n\nst.write({FLOOR_TEXT!r})\n", encoding="utf-8")
    return script


def measure_floor(home: Path, bytecode_cache: bool = True) -> dict[str, object]:
    """Seconds from spawning ``streamlit run`` on the one-line app to its text in Chromium."""
    from playwright.sync_api import sync_playwright

    script = floor_app(home)
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-dev-shm-usage"]
        )
        tab = browser.new_page(viewport={"width": 1400, "height": 900})
        t0 = time.perf_counter()
        with running_app(free_port(), app_env(home, bytecode_cache), home / "floor.log", 300, script) as app:
            healthy = time.perf_counter() - t0
            tab.goto(app.url)
            tab.get_by_text(FLOOR_TEXT).wait_for(timeout=TIMEOUT_MS)
            result: dict[str, object] = {
                "first_render_s": round(time.perf_counter() - t0, 2),
                "health_check_s": round(healthy, 2),
                "server_cpu_s": round(cpu_s(app.pid), 2),
            }
        browser.close()
    return result


def measure(
    home: Path, sessions: int, questions: int, trace: Path | None = None, bytecode_cache: bool = True
) -> dict[str, object]:
    from playwright.sync_api import sync_playwright

    port = free_port()
    env = app_env(home, bytecode_cache)
    steps: dict[str, float] = {}
    if trace is not None:
        env[startup_trace.ENV] = str(trace)
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-dev-shm-usage"]
        )
        tab = browser.new_page(viewport={"width": 1400, "height": 900})
        t0, wall0 = time.perf_counter(), time.time()
        log = home / "cold-start-streamlit.log"
        with running_app(port, env, log, deadline_s=300) as app:
            healthy = time.perf_counter() - t0
            steps["health check answered"] = time.time()
            first_answer(tab, app.url, steps)
            result: dict[str, object] = {
                "first_answer_s": round(time.perf_counter() - t0, 2),
                "health_check_s": round(healthy, 2),
                "server_cpu_s": round(cpu_s(app.pid), 2),
                "rss_demo_loaded_mb": round(rss_mb(app.pid), 1),  # at the first answer
            }
            result["rss_settled_mb"] = round(settled_rss_mb(app.pid), 1)  # the model loaded after it
            if trace is not None:
                result["trace"] = timeline(trace, steps, wall0)
            if questions > 0:
                result.update(growth(browser, app.url, app.pid, sessions, questions))
        browser.close()
    return result


def timeline(trace: Path, steps: dict[str, float], since: float) -> list[str]:
    """The app's marks and the browser's steps, as "seconds thread: event"."""
    rows = startup_trace.read(str(trace), since) if trace.is_file() else []
    rows += [(round(t - since, 3), "browser", name) for name, t in steps.items()]
    return [f"{t:6.2f} {thread}: {event}" for t, thread, event in sorted(rows)]


def one_run(args: argparse.Namespace) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="ragcore-cold-") as tmp:
        home = Path(args.home) if args.home else Path(tmp)
        home.mkdir(parents=True, exist_ok=True)
        state = "given" if any(home.iterdir()) else "empty"  # empty: the first start ever
        cache = not args.no_bytecode_cache
        if args.floor:
            result = {"app": "one-line floor", "bytecode_cache": cache, **measure_floor(Path(tmp), cache)}
        else:
            trace = Path(tmp) / "startup-trace.tsv" if args.trace else None
            measured = measure(home, args.sessions, args.questions, trace, cache)
            result = {"home": state, "bytecode_cache": cache, **measured}
    result["load_average"] = [round(x, 2) for x in os.getloadavg()]
    result["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    return result


def show(result: dict[str, object], as_json: bool) -> None:
    if as_json:
        print(json.dumps(result), flush=True)
    else:
        for key, value in result.items():
            if isinstance(value, list) and value and isinstance(value[0], str):
                print(key)
                print("\n".join("    " + line for line in value))
            else:
                print(f"{key:20} {value}")
        print(flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", help="library home (default: an empty temporary one)")
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--questions", type=int, default=0, help="questions for the RSS growth check")
    parser.add_argument("--runs", type=int, default=1, help="fresh server processes to time (median added)")
    parser.add_argument("--floor", action="store_true", help="time a one-line Streamlit app instead")
    parser.add_argument(
        "--no-bytecode-cache",
        action="store_true",
        help="keep the caller's PYTHONDONTWRITEBYTECODE (every start compiles the project's modules)",
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--trace", action="store_true", help="print the app's start-up marks (RAGCORE_STARTUP_TRACE)"
    )
    args = parser.parse_args()
    if not CHROMIUM.is_file():
        print(f"no Chromium at {CHROMIUM}", file=sys.stderr)
        return 2
    key = "first_render_s" if args.floor else "first_answer_s"
    times = []
    for _ in range(max(1, args.runs)):
        result = one_run(args)
        times.append(float(result[key]))  # type: ignore[arg-type]
        show(result, args.json)
    if len(times) > 1:
        show({"runs": len(times), key: times, "median_s": round(statistics.median(times), 2)}, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
