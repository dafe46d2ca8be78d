"""Block lists on a machine without the Debian package: ``pagesieve lists update`` downloads the
configured EasyList URLs once into the cache; without any list the ads filter says it is inactive."""

from __future__ import annotations

import http.server
import json
import subprocess
import sys
import threading

import lxml.html
import pytest
import yaml

from tests.conftest import REPO

pytestmark = pytest.mark.slow  # runs `pagesieve lists` in a process of its own

PAGE = ("<!doctype html><html><head><title>t</title></head><body><div id=story><h1>Story</h1>"
        + "<p>The harbour wall of Brightwater will be rebuilt after the winter storms, the council said.</p>" * 5
        + "<div class=evil-ad id=ad>Buy things</div></body></html>")


@pytest.fixture
def list_server():
    hits = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            hits.append(self.path)
            body = b"[Adblock Plus 2.0]\n##.evil-ad\n"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", hits
    server.shutdown()
    server.server_close()


def run(*args, cwd=REPO):
    return subprocess.run([sys.executable, "-m", "pagesieve", *args], capture_output=True, text=True, timeout=300,
                          cwd=str(cwd))


def make_config(tmp_path, url: str | None) -> str:
    data = yaml.safe_load((REPO / "config.yaml").read_text(encoding="utf-8"))
    data["filters"]["ads"]["lists"] = [str(tmp_path / "no-debian" / "easylist.txt")]  # as without the package
    data["filters"]["ads"]["cache_dir"] = str(tmp_path / "cache")
    data["filters"]["ads"]["download_urls"] = [f"{url}/easylist.txt"] if url else []
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return str(path)


def test_without_lists_the_ads_filter_is_inactive_and_says_so(tmp_path):
    cfg = make_config(tmp_path, None)
    status = run("lists", "--config", cfg, "status")
    assert status.returncode == 1
    assert "no block list: the ads filter is inactive" in status.stdout
    assert "run `pagesieve lists update`" in status.stdout
    page = tmp_path / "page.html"
    page.write_text(PAGE)
    r = run("filter", "--config", cfg, "--explain", str(page))
    assert r.returncode == 0
    assert "ads: inactive — no block list could be read" in r.stderr
    explained = json.loads(r.stderr[r.stderr.index("{"):])
    assert any(n["filter"] == "ads" and n["reason"].startswith("inactive") for n in explained["record"])
    assert lxml.html.document_fromstring(r.stdout).get_element_by_id("ad", None) is not None


def test_lists_update_downloads_once_and_the_filter_uses_the_copy(tmp_path, list_server):
    url, hits = list_server
    cfg = make_config(tmp_path, url)
    r = run("lists", "--config", cfg, "update")
    assert r.returncode == 0, r.stderr
    assert hits == ["/easylist.txt"]
    assert (tmp_path / "cache" / "lists" / "easylist.txt").read_bytes().endswith(b"##.evil-ad\n")
    assert "ok" in run("lists", "--config", cfg, "status").stdout
    page = tmp_path / "page.html"
    page.write_text(PAGE)
    out = run("filter", "--config", cfg, str(page))
    assert out.returncode == 0, out.stderr
    assert lxml.html.document_fromstring(out.stdout).get_element_by_id("ad", None) is None
    assert hits == ["/easylist.txt"]  # filtering never downloads: only the operator's command does


def test_lists_update_failure_is_one_clear_line(tmp_path):
    cfg = make_config(tmp_path, "http://127.0.0.1:9")
    r = run("lists", "--config", cfg, "update")
    assert r.returncode == 1 and "download failed" in r.stdout and "Traceback" not in r.stderr
