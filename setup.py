"""Build the optional C kernels: the exact analysis's (punto.analysis._kernel)
and the simulation's dealing kernel (punto.sim._kernel).

Everything else about the package is in pyproject.toml.  The extensions are
optional: without a C compiler the install still succeeds, the analysis uses
its pure-Python enumerator and the simulation numba (or plain Python for a
small run), which give identical integers.
"""

from setuptools import Extension, setup  # type: ignore[import-untyped]

setup(
    ext_modules=[
        Extension(
            "punto.analysis._kernel",
            sources=["src/punto/analysis/_kernel.c"],
            extra_compile_args=["-O3"],
            optional=True,
        ),
        Extension(
            "punto.sim._kernel",
            sources=["src/punto/sim/_kernel.c"],
            extra_compile_args=["-O3"],
            optional=True,
        ),
    ]
)
