"""Only the optional C extension lives here; everything else is in pyproject.toml."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "pipelines.ingest._abrscan",
            ["pipelines/ingest/_abrscan.c"],
            extra_compile_args=["-O2"],
            optional=True,  # no compiler: the ABR parser falls back to its regex
        ),
        Extension(
            "pipelines.matching._trgmjoin",
            ["pipelines/matching/_trgmjoin.c"],
            extra_compile_args=["-O2"],
            optional=True,  # no compiler: pipelines.matching.similarity falls back to Python
        ),
    ]
)
