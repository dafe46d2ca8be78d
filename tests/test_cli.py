"""The command line, run as a real process."""

import json
import subprocess
import sys

import pytest

PAGE = b"<html><head><title>T</title><script>x()</script></head><body><p>Hello <b>world</b></p></body></html>"


def cli(*args, stdin=b""):
    return subprocess.run([sys.executable, "-m", "pagesieve", *args], input=stdin, capture_output=True, timeout=120)


def test_filter_stdin_to_stdout_and_explain():
    r = cli("filter", "--explain", "-", stdin=PAGE)
    assert r.returncode == 0, r.stderr
    assert b"Hello <b>world</b>" in r.stdout and b"x()" not in r.stdout
    explain = json.loads(r.stderr)
    assert explain["preset"] == "declutter"
    assert any(e["filter"] == "ignore" for e in explain["record"])
    assert [f["filter"] for f in explain["filters"]] == explain["chain"]


def test_text_output_and_set(tmp_path):
    src = tmp_path / "p.html"
    src.write_bytes(PAGE)
    r = cli("filter", "--output", "text", str(src))
    assert r.returncode == 0 and r.stdout == b"T\n\nHello world\n"
    r = cli("filter", "--set", "output.format=text", str(src))
    assert r.stdout == b"T\n\nHello world\n"


@pytest.mark.parametrize("args, stdin, message", [
    (["filter", "/no/such/file.html"], b"", "pagesieve: error: cannot read /no/such/file.html: No such file or directory"),
    (["filter", "/"], b"", "pagesieve: error: cannot read /: is a directory"),
    (["filter", "-"], b"", "pagesieve: error: input is empty"),
    (["filter", "-"], b"GIF89a\x00\x01", "pagesieve: error: input is not HTML: binary data"),
    (["filter", "--preset", "nope", "-"], PAGE, "pagesieve: error: preset = 'nope': unknown preset; available: "),
    (["filter", "--set", "ignore.scripts=maybe", "-"], PAGE,
     "pagesieve: error: filters.ignore.scripts = 'maybe': expected true or false"),
    (["filter", "--set", "oops", "-"], PAGE, "pagesieve: error: --set 'oops': expected key=value"),
    (["filter", "--config", "/no/c.yaml", "-"], PAGE, "pagesieve: error: cannot read config file /no/c.yaml"),
])
def test_errors_are_one_line_and_exit_2(args, stdin, message):
    r = cli(*args, stdin=stdin)
    err = r.stderr.decode()
    assert r.returncode == 2
    assert err.startswith(message), err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_config_check_and_defaults():
    r = cli("config", "check")
    assert r.returncode == 0 and b"OK" in r.stdout
    r = cli("config", "defaults")
    assert b"filters:" in r.stdout
