"""Language processing the filters use (named entities for image-caption relevance); no HTTP, no DOM policy."""
