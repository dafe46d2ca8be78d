"""Fixtures of tests/scale: a throwaway PostgreSQL cluster shared by the module's tests."""

from __future__ import annotations

import pytest

from tests.scale.services import PostgresCluster


@pytest.fixture(scope="session")
def postgres():
    why = PostgresCluster.missing()
    if why:
        pytest.skip(why)
    pytest.importorskip("psycopg", reason="psycopg not installed: pip install 'psycopg[binary,pool]'")
    cluster = PostgresCluster()
    yield cluster
    cluster.close()
