"""A pytest plugin the downstream harness loads into each run (``-p``, from the tree's root):
it writes which package ``import meshio`` gave that run into ``meshio-used.txt``, so that the
harness knows the meshio++ side really ran meshio++ (and the meshio side meshio)."""

from pathlib import Path


def pytest_sessionfinish(session):
    try:
        import meshio

        used = meshio.__name__
    except Exception as error:  # a broken build: every test failed the same way
        used = f"nothing: import meshio raised {type(error).__name__}: {error}"
    Path(session.config.rootpath, "meshio-used.txt").write_text(used)
