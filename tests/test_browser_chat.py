"""The Chat page in a real browser: `streamlit run app.py` on a free loopback port, driven by Debian's
/usr/bin/chromium through Playwright (the launch pattern of tests/test_browser.py). Five turns with an
update in the middle: the page shows the supersede, then answers from the new fact."""
from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
STARTUP_S = 120        # server start (torch import) on a busy 2-core machine
ACTION_MS = 180_000    # the first script run loads the model; later ones are fast

if not Path(CHROMIUM).exists():
    if os.environ.get("MEMENGINE_REQUIRE_BROWSER") == "1":  # CI installs chromium: a skip there would hide a gap
        raise RuntimeError(f"{CHROMIUM} is missing but MEMENGINE_REQUIRE_BROWSER=1")
    pytest.skip(f"{CHROMIUM} is missing (apt-get install -y chromium); browser tests skipped",
                allow_module_level=True)

_pw = pytest.importorskip("playwright.sync_api")
sync_playwright, expect = _pw.sync_playwright, _pw.expect


def wait_healthy(url: str, proc: subprocess.Popen, log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with {proc.returncode}:\n{log.read_text(errors='replace')}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"streamlit did not become healthy in {timeout:.0f} s:\n{log.read_text(errors='replace')}")


@pytest.fixture(scope="module")
def server(tmp_path_factory, free_port):
    """A cockpit server on its own store, no LLM configured; always stopped afterwards."""
    work = tmp_path_factory.mktemp("browser_chat")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMENGINE_")}
    env.update(MEMENGINE_DATA_DIR=str(work / "store"), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               PYTHONUNBUFFERED="1")
    log = work / "streamlit.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
             "--server.address", "127.0.0.1", "--server.headless", "true", "--server.fileWatcherType", "none",
             "--browser.gatherUsageStats", "false"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc, log, STARTUP_S)
        yield {"url": url, "store": work / "store", "log": log}
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@pytest.fixture(scope="module")
def page(server):
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
            pg = ctx.new_page()
            pg.set_default_timeout(ACTION_MS)
            pg.goto(server["url"] + "/chat")
            pg.locator("h1", has_text="Chat").wait_for()
            yield pg
        finally:
            browser.close()


def settle(pg) -> None:
    """Wait until the script run finished (Streamlit's running indicator is gone)."""
    pg.wait_for_timeout(300)
    pg.locator('[data-testid="stStatusWidget"]').wait_for(state="detached")
    pg.wait_for_timeout(300)


def say(pg, text: str) -> None:
    box = pg.locator('[data-testid="stChatInput"] textarea')
    box.fill(text)
    box.press("Enter")
    pg.locator('[data-testid="stChatMessage"]', has_text=text).last.wait_for()
    settle(pg)
    pg.get_by_text("Updating memory…").wait_for(state="detached")


def test_five_turns_with_an_update_in_the_middle(page, server):
    pg = page
    pg.get_by_text("I don't know anything about you yet").wait_for()
    say(pg, "I live in Berlin.")
    say(pg, "My project deadline is October 15.")
    say(pg, "Actually, the deadline moved to November 2.")
    expect(pg.get_by_text("superseded #3: Project deadline is November 2.").first).to_be_visible()
    expect(pg.get_by_text("replaces #2 Project deadline is October 15. (now old)").first).to_be_visible()
    expect(pg.get_by_role("button", name="#3 → ledger")).to_be_visible()

    say(pg, "When is the project deadline?")
    reply = pg.locator('[data-testid="stChatMessage"]').filter(has_text="Here is what I remember").last
    expect(reply).to_contain_text("Project deadline is November 2. [#3]")
    expect(reply).not_to_contain_text("October 15")

    say(pg, "What is my favourite food?")
    expect(pg.locator('[data-testid="stChatMessage"]').last).to_contain_text("I don't know")
    expect(pg.locator('[data-testid="stException"]')).to_have_count(0)
    shots = os.environ.get("MEMENGINE_SCREENSHOTS")
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
        pg.screenshot(path=str(Path(shots) / "7-chat.png"), full_page=True)

    # the ledger link opens the memory in the Ledger page
    pg.get_by_role("button", name="#3 → ledger").click()
    pg.locator("h1", has_text="Ledger & lineage").wait_for()
    settle(pg)
    graph = pg.locator('[data-testid="stGraphVizChart"] svg')
    graph.wait_for()
    expect(graph).to_contain_text("#3 · active")  # the linked memory is the one inspected
    expect(graph).to_contain_text("#2 · superseded")

    # End session writes one summary memory cited to the five messages
    pg.locator('[data-testid="stSidebarNav"] a', has_text="Chat").click()
    pg.locator("h1", has_text="Chat").wait_for()
    settle(pg)
    pg.get_by_role("button", name="End session").click()
    pg.get_by_text("Session summary saved as memory").wait_for()
    expect(pg.get_by_text("Welcome back: your project deadline is November 2")).to_be_visible()
