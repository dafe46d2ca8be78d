"""The engine: the configuration (presets, settings, the process-wide sections), the chain that runs
the filters over a parsed page, and the output. Knows filters only through their registry and base
class; knows nothing of HTTP, users or stored state."""
