"""The compiled core: every ``src/cranfield/_native/<name>.c`` is built as ``cranfield._native.<name>``
(with the shared headers ``_native/*.h``)
(plain C on the CPython API and the buffer protocol; no build dependency beyond a C compiler).
Everything else about the package is declared in pyproject.toml."""

from pathlib import Path

from setuptools import Extension, setup

NATIVE = Path("src") / "cranfield" / "_native"

setup(ext_modules=[
    Extension(f"cranfield._native.{source.stem}", [source.as_posix()], depends=[h.as_posix() for h in NATIVE.glob("*.h")],
              extra_compile_args=["-O3", "-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter"])
    for source in sorted(NATIVE.glob("*.c"))
])
