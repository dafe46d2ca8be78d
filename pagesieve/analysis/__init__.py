"""Page analysis, below the filters: what a page is (its type, headline, byline, furniture, main
landmark, language, app shell) and the ad lists. Filters and the engine read it; it never imports a
filter, the engine or the proxy."""
