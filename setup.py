"""Build the optional C kernel of the exact analysis (punto.analysis._kernel).

Everything else about the package is in pyproject.toml.  The extension is
optional: without a C compiler the install still succeeds and the analysis
uses its pure-Python enumerator, which gives identical integers.
"""

from setuptools import Extension, setup  # type: ignore[import-untyped]

setup(
    ext_modules=[
        Extension(
            "punto.analysis._kernel",
            sources=["src/punto/analysis/_kernel.c"],
            extra_compile_args=["-O3"],
            optional=True,
        )
    ]
)
