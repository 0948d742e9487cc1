"""Test helpers shipped with meshio++ for its own suite and for downstream projects.

Nothing in the library imports this package. ``meshioplusplus.testing.fake_cupy`` is a test
double of CuPy (numpy-backed, no GPU) that counts host<->device transfers.
"""
