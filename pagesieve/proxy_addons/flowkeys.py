"""The keys under which the addons pass what they decided about a flow to the addons after them
(``flow.metadata``): one definition, so a writer and its readers cannot drift apart."""

USER = "pagesieve.user"
"""The authenticated user name (identity), read by the settings page."""

PROFILE = "pagesieve.profile"
"""The user's effective settings for the flow's host (identity), read by the filtering addon."""

OWN_PAGE = "pagesieve.own_page"
"""True for a page the proxy answers itself (settings page, health check): never filtered."""

DECISION = "pagesieve"
"""What the filtering addon decided about the page (outcome, reason), read by the metrics."""
