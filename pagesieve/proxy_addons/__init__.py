"""mitmproxy addons: the only part of pagesieve that knows HTTP. They hand HTML bodies to the chain and nothing else."""
