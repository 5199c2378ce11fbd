"""The compiled core: C kernels built from source by the package's build backend (``setup.py``).

Each module here has a pure-Python (numpy/Arrow) counterpart that follows the same grammar and
gives the same rows, values and errors; the tests compare the two on every input they try."""
