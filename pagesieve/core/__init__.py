"""The bottom layer: DOM helpers, the page's text measurement, errors, the setting declaration and a
small LRU. Imports nothing else of pagesieve; every other layer may import it."""
