"""The real parts of a several-instance deployment, on loopback, in temporary directories.

* :class:`PostgresCluster` — Debian's ``initdb`` + ``pg_ctl``: a throwaway cluster (trust
  authentication on 127.0.0.1, fsync off), run as ``nobody`` when the tests run as root
  (PostgreSQL refuses to run as root); ``stop()`` / ``start()`` mid-test for the outage test.
* :class:`Slapd` — Debian's ``slapd`` with a throwaway ``slapd.conf`` (mdb database) and a few
  users (``ou=people``; passwords stored as salted SHA).
* :class:`Haproxy` — Debian's ``haproxy`` running ``deploy/haproxy.cfg`` (the documented file)
  with one ``server`` line per instance, connecting from :data:`BALANCER` (its own address, as a
  balancer on its own machine has: the instances trust PROXY protocol headers from there alone).
* :func:`start_instances` — several ``pagesieve run`` started at once against one state database,
  all with the same ``proxy.confdir`` (one CA).

Each ``missing()`` says which binary is absent (the tests skip with that reason; ``scripts/setup.sh``
installs them all).
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from tests.conftest import REPO
from tests.proxy.conftest import INJECT, Proxy, free_port, pagesieve_run, terminate, write_config

HAPROXY_CFG = REPO / "deploy" / "haproxy.cfg"
LDAP_SUFFIX = "dc=example,dc=org"
LDAP_ADMIN = f"cn=admin,{LDAP_SUFFIX}"
LDAP_ADMIN_PASSWORD = "admin-secret"
LDAP_PEOPLE = f"ou=people,{LDAP_SUFFIX}"
#: The loopback address HAProxy connects to the instances from; their proxy.proxy_protocol_from.
#: Clients of the tests connect from others (127.0.0.1 straight to an instance, 127.0.0.x through
#: the balancer), as browsers on other machines would.
BALANCER = "127.0.0.9"


def wait_port(port: int, limit: float = 30.0, host: str = "127.0.0.1") -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on {host}:{port} after {limit:.0f} s")


# -- PostgreSQL -------------------------------------------------------------------------------------

def pg_bindir() -> Path | None:
    """Debian's PostgreSQL server binaries (the newest installed version), or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    which = shutil.which("pg_ctl")
    return Path(which).parent if which and shutil.which("initdb") else None


def _as_unprivileged() -> list[str]:
    """The prefix that runs a command as ``nobody`` when we are root (PostgreSQL refuses root)."""
    return ["runuser", "-u", "nobody", "--"] if os.geteuid() == 0 else []


class PostgresCluster:
    @staticmethod
    def missing() -> str | None:
        if pg_bindir() is None:
            return "PostgreSQL server binaries (initdb, pg_ctl) not found: apt-get install postgresql"
        if os.geteuid() == 0 and not shutil.which("runuser"):
            return "runuser not found (needed to run PostgreSQL as an unprivileged user)"
        return None

    def __init__(self) -> None:
        self.bindir = pg_bindir()
        self.root = Path(tempfile.mkdtemp(prefix="pagesieve-pg-"))
        self.data = self.root / "data"
        self.logfile = self.root / "postgres.log"
        self.port = free_port()
        if os.geteuid() == 0:
            os.chmod(self.root, 0o755)
            shutil.chown(self.root, "nobody", "nogroup")
        self._run(str(self.bindir / "initdb"), "-D", str(self.data), "-U", "pagesieve", "-A", "trust",
                  "-E", "UTF8", "--no-sync", "--locale=C")
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.write(f"listen_addresses = '127.0.0.1'\nport = {self.port}\n"
                       f"unix_socket_directories = '{self.data}'\nfsync = off\nsynchronous_commit = off\n"
                       "full_page_writes = off\nmax_connections = 100\n")
        self.start()

    @property
    def url(self) -> str:
        return f"postgresql://pagesieve@127.0.0.1:{self.port}/postgres"

    def _run(self, *cmd: str) -> None:
        r = subprocess.run([*_as_unprivileged(), *cmd], capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}): {r.stderr or r.stdout}")

    def start(self) -> None:
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-l", str(self.logfile), "-w", "-t", "60",
                  "start")

    def stop(self) -> None:
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "-t", "60", "stop")

    def create_database(self, name: str) -> str:
        """A new empty database in the cluster; its URL."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql://pagesieve@127.0.0.1:{self.port}/{name}"

    def close(self) -> None:
        try:
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        except RuntimeError:
            pass
        shutil.rmtree(self.root, ignore_errors=True)


# -- slapd --------------------------------------------------------------------------------------------

SLAPD_CONF = """\
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
modulepath /usr/lib/ldap
moduleload back_mdb
pidfile {root}/slapd.pid
database mdb
maxsize 10485760
suffix "{suffix}"
rootdn "{admin}"
rootpw {password}
directory {root}/db
"""


class Slapd:
    @staticmethod
    def missing() -> str | None:
        if not Path("/usr/sbin/slapd").exists() and not shutil.which("slapd"):
            return "slapd not found: apt-get install slapd"
        if not Path("/etc/ldap/schema/inetorgperson.schema").exists():
            return "the LDAP schema files (/etc/ldap/schema) not found: apt-get install slapd"
        return None

    def __init__(self, users: dict[str, str]) -> None:
        import ldap3
        from ldap3.utils.hashed import hashed

        self.root = Path(tempfile.mkdtemp(prefix="pagesieve-ldap-"))
        (self.root / "db").mkdir()
        conf = self.root / "slapd.conf"
        conf.write_text(SLAPD_CONF.format(root=self.root, suffix=LDAP_SUFFIX, admin=LDAP_ADMIN,
                                          password=LDAP_ADMIN_PASSWORD))
        self.port = free_port()
        self.url = f"ldap://127.0.0.1:{self.port}"
        slapd = shutil.which("slapd") or "/usr/sbin/slapd"
        self.log = (self.root / "slapd.log").open("wb")
        # -d 0: stay in the foreground (the test owns the process), log nothing.
        self.proc = subprocess.Popen([slapd, "-f", str(conf), "-h", f"{self.url}/", "-d", "0"],
                                     stdout=self.log, stderr=subprocess.STDOUT)
        wait_port(self.port)
        conn = ldap3.Connection(ldap3.Server(self.url), LDAP_ADMIN, LDAP_ADMIN_PASSWORD, auto_bind=True)
        conn.add(LDAP_SUFFIX, ["dcObject", "organization"], {"dc": "example", "o": "Example"})
        conn.add(LDAP_PEOPLE, ["organizationalUnit"], {"ou": "people"})
        for name, password in users.items():
            ok = conn.add(f"uid={name},{LDAP_PEOPLE}", ["inetOrgPerson"],
                          {"uid": name, "cn": name, "sn": name,
                           "userPassword": hashed(ldap3.HASHED_SALTED_SHA, password)})
            assert ok, conn.result
        conn.unbind()

    def close(self) -> None:
        terminate(self.proc)
        self.log.close()
        shutil.rmtree(self.root, ignore_errors=True)


# -- HAProxy ------------------------------------------------------------------------------------------

class Haproxy:
    @staticmethod
    def missing() -> str | None:
        return None if shutil.which("haproxy") else "haproxy not found: apt-get install haproxy"

    def __init__(self, backends: list[int], root: Path, source: str = BALANCER) -> None:
        self.port = free_port()
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.config = root / "haproxy.cfg"
        servers = "".join(f"    server p{i} 127.0.0.1:{port} source {source}\n" for i, port in enumerate(backends, 1))
        self.config.write_text(HAPROXY_CFG.read_text() + servers)
        self.log = (root / "haproxy.log").open("wb")
        env = {**os.environ, "PAGESIEVE_LISTEN": f"127.0.0.1:{self.port}"}
        check = subprocess.run(["haproxy", "-c", "-f", str(self.config)], env=env, capture_output=True, text=True)
        if check.returncode != 0:
            raise RuntimeError(f"haproxy -c: {check.stdout}{check.stderr}")
        self.proc = subprocess.Popen(["haproxy", "-db", "-f", str(self.config)], env=env,
                                     stdout=self.log, stderr=subprocess.STDOUT)
        wait_port(self.port)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log_text(self) -> str:
        return (self.root / "haproxy.log").read_text(errors="replace")

    def close(self) -> None:
        terminate(self.proc)
        self.log.close()


# -- pagesieve instances ------------------------------------------------------------------------------

def make_ca(confdir: Path) -> Path:
    """mitmproxy's CA in ``confdir`` (what the first start of an instance would create), made once
    before several instances start so that they all use it."""
    from mitmproxy import certs

    confdir.mkdir(parents=True, exist_ok=True)
    certs.CertStore.from_store(confdir, "mitmproxy", 2048)
    return confdir / "mitmproxy-ca-cert.pem"


def instance_config(path: Path, tmp: Path, *, state_url: str, workers: int = 1, refresh_seconds: float = 1.0,
                    auth: bool = False, directory: dict | None = None, **proxy) -> Path:
    """A test config (tests/proxy's, small limits) with the state in PostgreSQL, reading the PROXY
    protocol header from :data:`BALANCER`."""
    proxy.setdefault("proxy_protocol_from", [BALANCER])
    write_config(path, tmp, workers=workers, **proxy)
    data = yaml.safe_load(path.read_text())
    data["state"].update({"url": state_url, "refresh_seconds": refresh_seconds})
    data["users"]["auth"] = auth
    if directory:
        data["directory"].update(directory)
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def start_instances(n: int, root: Path, config: Path, confdir: Path, *args: str, limit: float = 120) -> list[Proxy]:
    """``n`` ``pagesieve run`` processes started at once (same config, same confdir), each in its own
    process group (so a test can kill one with its workers); waits until all are ready."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(INJECT), str(REPO)]), "PYTHONUNBUFFERED": "1"}
    procs = []
    for i in range(1, n + 1):
        d = root / f"p{i}"
        d.mkdir(parents=True, exist_ok=True)
        port = free_port()
        log = d / "proxy.log"
        proc = subprocess.Popen(pagesieve_run(port, confdir, config, *args), stdout=log.open("wb"),
                                stderr=subprocess.STDOUT, env=env, cwd=str(d), start_new_session=True)
        procs.append(Proxy(proc, port, confdir, log, config))
    deadline = time.monotonic() + limit
    pending = list(procs)
    while pending and time.monotonic() < deadline:
        for p in list(pending):
            if p.proc.poll() is not None:
                for q in procs:
                    q.stop()
                raise RuntimeError(f"instance on port {p.port} exited with {p.proc.returncode}:\n{p.log_text()}")
            if "worker processes ready" in p.log_text():
                pending.remove(p)
        time.sleep(0.1)
    if pending:
        for q in procs:
            q.stop()
        raise RuntimeError(f"{len(pending)} instance(s) not ready in {limit:.0f} s:\n{pending[0].log_text()}")
    return procs


def kill_instance(p: Proxy) -> None:
    """SIGKILL an instance and its worker processes (a machine or process crash, no clean shutdown)."""
    try:
        os.killpg(p.proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    p.proc.wait(10)


def missing_parts() -> str | None:
    for part in (PostgresCluster, Slapd, Haproxy):
        why = part.missing()
        if why:
            return why
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ModuleNotFoundError:
        return "psycopg not installed: pip install 'psycopg[binary,pool]' (scripts/setup.sh does)"
    return None


if __name__ == "__main__":  # a quick manual check of the parts
    print(missing_parts() or "all parts present", file=sys.stderr)
