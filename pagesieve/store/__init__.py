"""What the proxy keeps between requests: the state database (SQLite or PostgreSQL), users' profiles,
the per-site memory, the htpasswd file and the LDAP directory. Used by the proxy and the commands;
built on the engine's settings."""
