"""Slider latency of the Recall page in a real browser: from a slider step (key released) to updated results.

Starts `streamlit run app.py` from --app-dir on a free loopback port with a throwaway store holding the
canonical messages, opens Recall in Debian's chromium (Playwright), asks a question, then moves the
Threshold slider one step at a time (alternately right and left). Each step starts from a settled page
and is timed twice: until the summary shows the new threshold ("first"), and until the whole results
fragment is redrawn ("done": the new threshold shown, no element left stale from the previous run, no
run in progress). Prints median and p95 of both in ms; "done" is the figure to judge. A measurement,
not a test: run it on a quiet machine and say how loaded it was.

    python scripts/bench_slider.py --steps 30                 # this checkout
    python scripts/bench_slider.py --app-dir /path/to/other   # another checkout, for a before/after
"""
from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
MESSAGES = ["I use Arch Linux.", "I'm building a Next.js app.", "My project deadline is October 15.",
            "Actually, the deadline moved to November 2."]
QUERY = "When is the project deadline?"
PREFILL = ("import sys; from engine import MemoryEngine, Settings\n"
           "with MemoryEngine(Settings()) as eng: eng.ingest_many(sys.argv[1:], user_id='default')")
# The Recall summary reads "… at threshold 0.41 …", or "Nothing cleared the threshold 0.41" when empty.
SHOWS_THRESHOLD = ("(t) => { const s = document.querySelector('[data-testid=\"stMain\"]').innerText;"
                   " return s.includes('at threshold ' + t) || s.includes('Nothing cleared the threshold ' + t); }")
# While a run is under way Streamlit marks every element it has not re-sent yet as stale, and shows
# its running indicator; when neither is left, the run is finished and drawn.
SETTLED = ("() => !document.querySelector('[data-testid=\"stMain\"] [data-stale=\"true\"]')"
           " && !document.querySelector('[data-testid^=\"stStatusWidgetRunning\"]')")
REDRAWN = f"(t) => ({SHOWS_THRESHOLD})(t) && ({SETTLED})()"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, proc: subprocess.Popen, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"streamlit exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise SystemExit(f"streamlit did not become healthy in {timeout:.0f} s")


def percentile(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[max(0, min(len(s) - 1, -(-len(s) * q // 100) - 1))]


def measure(url: str, steps: int, warmup: int) -> tuple[list[float], list[float]]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 900})
            page.set_default_timeout(180_000)
            page.goto(url + "/")
            box = page.get_by_role("textbox", name="Query")
            box.fill(QUERY)
            box.press("Enter")
            page.get_by_text("Project deadline is November 2.").first.wait_for()
            slider = page.locator('[data-testid="stSlider"]', has_text="Threshold").first
            thumb = slider.get_by_role("slider")
            value = float(slider.locator('[data-testid="stSliderThumbValue"]').inner_text())
            page.wait_for_function(SHOWS_THRESHOLD, arg=f"{value:.2f}")
            thumb.focus()
            first: list[float] = []
            done: list[float] = []
            for i in range(warmup + steps):
                key, delta = ("ArrowRight", 0.01) if i % 2 == 0 else ("ArrowLeft", -0.01)
                value = round(value + delta, 2)
                page.wait_for_function(SETTLED, polling="raf")
                page.wait_for_timeout(300)  # a user's next step comes after the last one is drawn
                t0 = time.perf_counter()
                page.keyboard.press(key)  # keydown + keyup: the step is released at once
                page.wait_for_function(SHOWS_THRESHOLD, arg=f"{value:.2f}", polling="raf")
                t1 = time.perf_counter()
                page.wait_for_function(REDRAWN, arg=f"{value:.2f}", polling="raf")
                t2 = time.perf_counter()
                if i >= warmup:
                    first.append((t1 - t0) * 1000)
                    done.append((t2 - t0) * 1000)
            return first, done
        finally:
            browser.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--app-dir", default=str(Path(__file__).resolve().parent.parent))
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=3)
    args = ap.parse_args()
    app_dir = Path(args.app_dir).resolve()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-slider-") as work:
        env = {k: v for k, v in os.environ.items() if not k.startswith("MEMENGINE_")}
        env.update(MEMENGINE_DATA_DIR=str(Path(work) / "store"), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
        subprocess.run([sys.executable, "-c", PREFILL, *MESSAGES], cwd=app_dir, env=env, check=True)
        port = free_port()
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
             "--server.address", "127.0.0.1", "--server.headless", "true", "--server.fileWatcherType", "none",
             "--browser.gatherUsageStats", "false"],
            cwd=app_dir, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        try:
            url = f"http://127.0.0.1:{port}"
            wait_healthy(url, proc, 180)
            first, done = measure(url, args.steps, args.warmup)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
    print(f"app: {app_dir} · load average before {load_before:.2f}, after {os.getloadavg()[0]:.2f}")
    for name, times in (("first (summary shows the step)", first), ("done (results redrawn)", done)):
        print(f"{name}: {len(times)} steps · median {statistics.median(times):.0f} ms · "
              f"p95 {percentile(times, 95):.0f} ms · min {min(times):.0f} ms · max {max(times):.0f} ms")


if __name__ == "__main__":
    main()
