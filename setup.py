"""Build the compiled page table (pagesieve/core/_pagetable.pyx), main_content's block counts
(_blocks.pyx), with their shared text counting (_text.pxd), the attribute walks of the ads, ignore and
accessibility filters (_attrs.pyx) and the article filter's paragraph sums (_paragraphs.pyx), against
lxml's public C API, and the pre-parse count of attributes per tag (_tagscan.pyx, plain C over the
page's string).

Everything else about the package is in pyproject.toml. The extension is optional: where it cannot
be built (no C compiler, no Python headers), the package installs without it and
pagesieve.core.measure uses its pure-Python measurement, which gives the same numbers, slower.
"""

from setuptools import Extension, setup


def extensions() -> list[Extension]:
    try:
        import lxml
        from Cython.Build import cythonize
    except ImportError as e:  # a build without the build requirements: the pure-Python measurement
        print(f"pagesieve: not building the compiled page table ({e})")
        return []
    exts = [Extension(f"pagesieve.core.{name}", [f"pagesieve/core/{name}.pyx"], include_dirs=lxml.get_include(),
                      depends=["pagesieve/core/_text.pxd"], optional=True)
            for name in ("_pagetable", "_blocks", "_tagscan", "_attrs", "_paragraphs")]
    return cythonize(exts, compiler_directives={"language_level": "3"}, quiet=True)


setup(ext_modules=extensions())
