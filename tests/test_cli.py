"""The command line, run as a real process."""

import json
import subprocess
import sys

import pytest

from tests.proxy.conftest import free_port

pytestmark = pytest.mark.slow  # every test runs the command in a process of its own

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


def own_config(tmp_path, text: str):
    path = tmp_path / "mine.yaml"
    path.write_text(text.replace("TMP", str(tmp_path)), encoding="utf-8")
    return path


def test_config_show_prints_the_merged_configuration_and_diff_what_differs(tmp_path):
    import yaml

    from pagesieve.engine import config as C

    path = own_config(tmp_path, "users: {auth: true, htpasswd: TMP/htpasswd}\nstate: {path: ':memory:'}\n")
    r = cli("config", "show", "--config", str(path))
    assert r.returncode == 0, r.stderr
    assert yaml.safe_load(r.stdout) == C.load(path).data
    assert yaml.safe_load(r.stdout)["presets"].keys() == C.load().presets.keys()
    r = cli("config", "diff", "--config", str(path))
    assert r.stdout.decode().splitlines() == [
        "state.path: ~/.local/share/pagesieve/state.sqlite3 -> ':memory:'",
        "users.auth: false -> true", f"users.htpasswd: ~/.config/pagesieve/htpasswd -> {tmp_path}/htpasswd"]
    assert cli("config", "diff").stdout.decode().endswith(": the same as the packaged configuration\n")


@pytest.mark.parametrize("text, message", [
    # logins on, no password file, no directory: the hint names the file in use
    ("users: {auth: true, htpasswd: TMP/none}", "users.auth is on but users.htpasswd (TMP/none) does not exist; "
                                                "add a user with `pagesieve users add NAME --config TMP/mine.yaml`"),
    ("users: {auth: true, htpasswd: TMP/bad}", "TMP/bad"),
    ("directory: {url: 'http://ldap.example'}", "directory.url = 'http://ldap.example': expected ldap://host:port"),
    ("directory: {url: 'ldap://ldap.example', bind_dn: x, bind_password: 'a:b', base_dn: y}",
     "directory.bind_password = '***': must not contain ':'"),
    ("state: {path: TMP/bad/state.sqlite3}", "state.path = 'TMP/bad/state.sqlite3': TMP/bad/state.sqlite3 does not "
                                             "exist and TMP/bad is no directory"),
    ("state: {path: TMP/notadb}", "state.path = 'TMP/notadb': cannot open"),
    ("state: {url: 'postgresql://nobody@127.0.0.1:9/none'}", "state.url = 'postgresql://nobody@127.0.0.1:9/none': "
                                                               "cannot connect"),
])
def test_config_check_makes_every_check_run_makes(tmp_path, text, message):
    (tmp_path / "bad").write_text("no colon on this line\n")
    (tmp_path / "notadb").write_bytes(b"this is not an SQLite file" * 100)
    path = own_config(tmp_path, text)
    r = cli("config", "check", "--config", str(path))
    err = r.stderr.decode()
    assert r.returncode == 2 and r.stdout == b"", (r.stdout, err)
    assert err.startswith("pagesieve: error: " + message.replace("TMP", str(tmp_path))), err
    assert err.count("\n") == 1
    # `run` makes the same checks, before its banner.
    r = cli("run", "--config", str(path), "--listen-port", str(free_port()), "--confdir", str(tmp_path / "mitm"))
    assert r.returncode == 2 and r.stdout == b"", r.stdout
    assert r.stderr.decode() == err


def test_config_check_says_what_will_be_used(tmp_path):
    path = own_config(tmp_path, "users: {auth: true, htpasswd: TMP/htpasswd, settings_host: settings.lan}\n"
                                "state: {path: TMP/state/state.sqlite3}\n")
    (tmp_path / "htpasswd").write_text("alice:$2b$12$" + "a" * 53 + "\n")
    out = cli("config", "check", "--config", str(path)).stdout.decode().splitlines()
    assert out[0] == f"{path}: OK (9 presets: declutter, reader, reader-paper, reader-linkdensity, reader-linkblocks, " \
                     "reader-templates, reader-textdensity, reader-main, topics)"
    assert out[1] == f"  logins: on (1 user in {tmp_path}/htpasswd)"
    assert out[2] == "  settings page: http://settings.lan/ (through the proxy)"
    assert out[3] == f"  state: {tmp_path}/state/state.sqlite3 (created on first start)"
    assert out[4].startswith("  ad lists: ") and out[5].startswith("  NER model: ")
    assert not (tmp_path / "state").exists()  # a check creates nothing


@pytest.mark.parametrize("where", ["before", "after", "last"])
@pytest.mark.parametrize("command", [("users", "list"), ("config", "check"), ("lists", "status")])
def test_config_is_taken_in_the_same_places_by_every_command(tmp_path, where, command):
    path = own_config(tmp_path, "users: {auth: true, htpasswd: TMP/htpasswd}\n"
                                "state: {path: ':memory:'}\nfilters: {ads: {lists: [TMP/list.txt]}}\n")
    (tmp_path / "htpasswd").write_text("zed:$2b$12$" + "a" * 53 + "\n")
    (tmp_path / "list.txt").write_text("##.ad\n")
    first, second = command
    args = {"before": ["--config", str(path), first, second], "after": [first, "--config", str(path), second],
            "last": [first, second, "--config", str(path)]}[where]
    r = cli(*args)
    assert r.returncode == 0, r.stderr
    want = {"users": "zed\n", "config": f"{path}: OK", "lists": f"{tmp_path}/list.txt: ok"}[first]
    assert want in r.stdout.decode()


@pytest.mark.parametrize("option, message", [
    ("nonsense_opt=1", "--mitmproxy-set nonsense_opt=1: no loaded addon has an option 'nonsense_opt'"),
    ("block_list=bad", "--mitmproxy-set block_list=bad: Cannot parse block_list option bad"),
    ("ssl_insecure=maybe", "--mitmproxy-set ssl_insecure=maybe: Failed to parse option ssl_insecure"),
])
def test_a_mitmproxy_option_no_addon_takes_is_refused_in_one_line_before_the_banner(tmp_path, option, message):
    path = own_config(tmp_path, "state: {path: ':memory:'}\n")
    r = cli("run", "--config", str(path), "--listen-port", str(free_port()), "--confdir", str(tmp_path / "mitm"),
            "--mitmproxy-set", option)
    err = r.stderr.decode()
    assert r.returncode == 2 and b"filtering proxy on" not in r.stdout, (r.stdout, err)
    # One line says what is wrong; the only other lines are the workers' preload, which starts at once
    # and may log before the options are checked on a slow machine.
    lines = err.splitlines()
    assert lines[-1].startswith("pagesieve: error: " + message), err
    assert all(" INFO pagesieve." in line for line in lines[:-1]), err


@pytest.mark.proxy
def test_an_option_of_mitmproxys_own_addons_is_taken_and_the_banner_says_what_is_used(tmp_path):
    import httpx

    from tests.proxy.conftest import start_proxy

    proxy = start_proxy(tmp_path, "--mitmproxy-set", "block_list=|~d blocked.example|451")
    try:
        with httpx.Client(proxy=proxy.url, trust_env=False, timeout=30) as client:
            assert client.get("http://blocked.example/").status_code == 451  # mitmproxy's blocklist addon
        banner = proxy.log_text()
        assert "  Settings page: http://pagesieve.core.settings/ (through the proxy).\n" in banner
        assert "  Logins: off (everyone shares the 'default' settings; users.auth turns them on).\n" in banner
        assert "  Ad lists: " in banner and "  NER model: " in banner
        assert banner.index("Stop: Ctrl-C.") < banner.index("worker processes ready")
    finally:
        proxy.stop()
