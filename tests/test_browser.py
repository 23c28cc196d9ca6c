"""The HTML reports in a real browser: headless Chromium (Debian's package) driven by Playwright.

A per-submission report.html (`autograde grade reference`) and a class report
index.html (`autograde batch` on part of examples/submissions) are served from
a localhost HTTP server and crawled: every page reachable by a link is opened.
Each page must be non-blank (score visible, pixels drawn), free of script
errors, every link must resolve (anchors exist in their page, files answer
200), and no request may leave the machine (only the local server, data: and
about: URLs).

Playwright only drives /usr/bin/chromium (`executable_path`); `playwright
install` is never run. The user-data-dir is a fresh temporary directory
(Playwright passes it as --user-data-dir to a persistent context).
"""

from __future__ import annotations

import functools
import io
import shutil
import threading
import urllib.error
import urllib.request
from collections import deque
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Dict, List, Set
from urllib.parse import unquote, urldefrag, urlparse

import pytest

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip("/usr/bin/chromium is absent: install Debian's chromium and chromium-driver "
                "(apt-get install -y chromium chromium-driver, as .ci/run does)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright (the [dev] extra) is not installed")

import classbuilder as cb  # noqa: E402
from graders.cli import main as cli  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
#: The submissions sharing a bug the catalogue does not name (tests/files/uncatalogued): one failure cluster.
SHARED_BUG = cb.SHARED_BUG
MAX_PAGES = 40
#: urllib without any proxy from the environment: the server is on this machine.
DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))

pytestmark = pytest.mark.slow


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest's output clean
        pass


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A localhost HTTP server over a fresh directory; yields (root folder, base URL)."""
    root = tmp_path_factory.mktemp("site")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(root)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_api.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(profile), executable_path=str(CHROMIUM), headless=True, args=FLAGS,
            viewport={"width": 1280, "height": 900}, service_workers="block",
        )
        try:
            yield context
        finally:
            context.close()


def non_white_fraction(png: bytes) -> float:
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("L")
    histogram = image.histogram()
    dark = sum(histogram[:240])
    return dark / float(image.width * image.height)


def crawl(context, base: str, start: str) -> Dict[str, List[str]]:
    """Open `start` and every same-site page it links to; return the problems found per page."""
    requests: List[str] = []
    failures: List[str] = []
    errors: List[str] = []

    def allowed(url: str) -> bool:
        return url == base or url.startswith((base + "/", "data:", "about:"))

    def route(r):
        if allowed(r.request.url):
            r.continue_()
        else:
            r.abort()  # recorded by the request listener; never sent

    def on_request(r):
        requests.append(r.url)

    def on_failed(r):
        failures.append(f"{r.url}: {r.failure}")

    def on_response(r):
        if r.status >= 400 and urlparse(r.url).path != "/favicon.ico":  # the browser's own guess, not a link
            failures.append(f"{r.url}: HTTP {r.status}")

    context.route("**/*", route)
    listeners = {"request": on_request, "requestfailed": on_failed, "response": on_response}
    for event, fn in listeners.items():
        context.on(event, fn)

    try:
        problems: Dict[str, List[str]] = {}
        seen: Set[str] = set()
        queue = deque([start])
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        anchors_wanted: List[tuple] = []
        #: what each link target answered (a target linked from several pages is asked once)
        statuses: Dict[str, int] = {}
        #: the ids and names in each page opened (what getElementById or getElementsByName finds there)
        targets: Dict[str, Set[str]] = {}
        names_js = "els => els.flatMap(e => [e.id, e.getAttribute('name')]).filter(n => n)"
        while queue and len(seen) < MAX_PAGES:
            url = queue.popleft()
            if url in seen:
                continue
            seen.add(url)
            found: List[str] = []
            response = page.goto(url, wait_until="load")
            assert response is not None and response.status == 200, f"{url}: {response and response.status}"
            text = page.inner_text("body").strip()
            if len(text) < 50:
                found.append(f"almost no text ({len(text)} characters)")
            shot = page.screenshot(full_page=False)
            if non_white_fraction(shot) < 0.01:
                found.append("the screenshot is blank (fewer than 1% non-white pixels)")
            if url.endswith("report.html"):
                total = page.locator("#total")
                if not total.is_visible() or not total.inner_text().strip():
                    found.append("the total score (#total) is not visible")
            ids = set(page.eval_on_selector_all("[id], a[name]", "els => els.map(e => e.id || e.getAttribute('name'))"))
            targets[url] = set(page.eval_on_selector_all("[id], [name]", names_js))
            links = page.eval_on_selector_all(
                "a[href]", "els => els.map(e => [e.getAttribute('href'), e.href])")
            for raw, absolute in links:
                target, fragment = urldefrag(absolute)
                scheme = urlparse(absolute).scheme
                if scheme in ("data", "about", "javascript", "mailto"):
                    if scheme == "javascript":
                        found.append(f"javascript: link {raw!r}")
                    continue
                if not allowed(target):
                    found.append(f"link {raw!r} leaves the machine ({absolute})")
                    continue
                if target == urldefrag(page.url)[0]:
                    if fragment and unquote(fragment) not in ids:
                        found.append(f"link {raw!r}: no element with id {unquote(fragment)!r} in this page")
                    continue
                if target not in statuses:
                    try:
                        with DIRECT.open(target, timeout=10) as reply:
                            statuses[target] = reply.status
                    except urllib.error.HTTPError as exc:
                        statuses[target] = exc.code
                status = statuses[target]
                if status != 200:
                    found.append(f"link {raw!r} -> HTTP {status}")
                    continue
                if fragment:
                    anchors_wanted.append((url, raw, target, unquote(fragment)))
                if target.endswith(".html") and target not in seen:
                    queue.append(target)
            problems[url] = found
        # anchors into other pages: check once every page has been visited (as loaded then; a page not visited is
        # opened now, once)
        for source, raw, target, fragment in anchors_wanted:
            if target not in targets:
                page.goto(target, wait_until="load")
                targets[target] = set(page.eval_on_selector_all("[id], [name]", names_js))
            if fragment not in targets[target]:
                problems[source].append(f"link {raw!r}: no element with id {fragment!r} in {target}")
    finally:
        for open_page in context.pages:
            open_page.close()
        context.unroute("**/*")
        for event, fn in listeners.items():
            context.remove_listener(event, fn)
    leaving = sorted({u for u in requests if not allowed(u)})
    assert not leaving, f"requests leaving the machine: {leaving}"
    assert not failures, f"failed requests: {failures}"
    assert not errors, f"script errors: {errors}"
    return problems


def test_student_report_renders_in_chromium(server, browser):
    """The reference's report from `autograde grade reference` (every problem of the default offering), graded once
    per run and shared with test_grade_end_to_end.py (classbuilder.reference_graded)."""
    root, base = server
    graded = cb.reference_graded()
    assert graded.returncode == 0, graded.stdout[-2000:] + graded.stderr[-2000:]
    shutil.copytree(graded.out, root / "reference")
    problems = crawl(browser, base, f"{base}/reference/report.html")
    assert problems and not any(problems.values()), problems


def test_class_report_renders_in_chromium(server, browser):
    """The class report of the bundled class beside the three SHARED_BUG submissions and two more with the example
    class's misconceptions (a correct folder, the blank template, buggy ones, a zipped one), as `autograde batch`
    wrote it on autodiff with the similarity screening: graded once per run and shared with test_clusters.py
    (classbuilder.example_class_graded). Every problem's own sections and figures are rendered by the student
    report above (the reference graded on every problem of the offering)."""
    if "batch" not in cli.commands:
        pytest.skip("`autograde batch` does not exist yet: no class report (index.html) to render")
    root, base = server
    graded = cb.example_class_graded()
    assert graded.returncode == 0, graded.stdout[-2000:] + graded.stderr[-2000:]
    shutil.copytree(graded.source, root / "class-input")  # served as batch wrote them, beside its input
    shutil.copytree(graded.out, root / "grading")
    problems = crawl(browser, base, f"{base}/grading/index.html")
    visited = set(problems)
    for name in cb.example_class_beside_the_shared_bug():
        assert f"{base}/grading/{name}/report.html" in visited, f"index.html does not link {name}'s report"
    assert f"{base}/grading/similarity.html" in visited, "index.html does not link the similarity page"
    assert not any(problems.values()), {k: v for k, v in problems.items() if v}
    # alice_correct and grace_zipped hand in the same code: an attention item leads to it, side by side
    page = browser.new_page()
    try:
        page.goto(f"{base}/grading/index.html", wait_until="load")
        page.locator("#attention a", has_text="alice_correct ~ grace_zipped").click()
        page.wait_for_url("**/similarity.html#pair-*")
        pair = page.locator(f"#{urlparse(page.url).fragment}")
        assert pair.is_visible() and "alice_correct ~ grace_zipped" in pair.locator("summary").inner_text()
        assert pair.locator("tr.hit").first.is_visible()  # matched lines, highlighted
        assert page.locator("#histogram + figure svg").is_visible()
        # the blank submission is the first thing a TA reads: under "Needs attention", above the pass rates
        page.goto(f"{base}/grading/index.html", wait_until="load")
        blank = page.locator("#needs-attention tr.attention-blank")
        assert blank.count() == 1 and "bob_blank" in blank.inner_text() and blank.is_visible()
        top = lambda selector: page.locator(selector).first.bounding_box()["y"]  # noqa: E731
        assert top("#needs-attention") < top("#misconceptions") < top("#students") < top("#tests")
        # the shared failure nobody catalogued: one cluster of exactly the three, with its tests and an example,
        # above the student table; the clusters a named misconception explains (carol_bfs with kim_bfs,
        # dave_recursive with lee_recursive) come after it, collapsed until opened
        shared = page.locator("#uncatalogued-clusters li.cluster")
        assert shared.count() == 1 and shared.is_visible()
        assert shared.locator(".cluster-members a").all_inner_texts() == list(SHARED_BUG)
        assert "Slides example" in shared.locator(".cluster-tests").inner_text()
        assert "got [736.076, 978.768]" in shared.locator(".cluster-example").inner_text()
        assert page.locator("#catalogue-howto").is_visible()
        assert top("#misconceptions") < top("#clusters") < top("#uncatalogued-clusters") < top("#students")
        named = page.locator("#catalogued-clusters li.cluster")
        assert named.count() == 2 and not named.first.is_visible()
        page.locator("#catalogued-clusters summary").click()
        assert named.first.is_visible() and "carol_bfs" in page.locator("#catalogued-clusters").inner_text()
        assert top("#uncatalogued-clusters") < top("#catalogued-clusters") < top("#students")
        assert not page.locator("#tests table").is_visible()  # per-test pass rates start collapsed
        page.locator("#tests summary").click()
        assert page.locator("#tests table").is_visible()
        blank.locator("a").click()
        page.wait_for_url("**/bob_blank/report.html")
    finally:
        page.close()


def test_the_crawler_catches_broken_pages(server, browser):
    """The checks above can fail: a dead anchor, a missing file and a blank page are reported,
    and a request to another host is refused and reported."""
    root, base = server
    site = root / "bad"
    site.mkdir()
    text = "<p>" + "words " * 40 + "</p>"
    (site / "page.html").write_text(
        f'<html><body><h1 id="top">Report</h1>{text}<a href="#nowhere">dead anchor</a> '
        '<a href="missing.html">missing file</a> <a href="blank.html#top">blank page</a></body></html>')
    (site / "blank.html").write_text("<html><body></body></html>")
    problems = crawl(browser, base, f"{base}/bad/page.html")
    found = " ".join(problems[f"{base}/bad/page.html"])
    assert "'nowhere'" in found and "missing.html" in found and "blank.html#top" in found
    assert any("blank" in p for p in problems[f"{base}/bad/blank.html"])
    (site / "remote.html").write_text(f'<html><body>{text}<img src="http://192.0.2.1/pixel.png"></body></html>')
    with pytest.raises(AssertionError, match="leaving the machine"):
        crawl(browser, base, f"{base}/bad/remote.html")
