"""LS-DYNA binout time histories: no mesh, each database's variables as field data per time step
through the core's time-series reader:

    with meshioplusplus.binout.TimeSeriesReader("binout") as reader:
        reader.read_points_cells()                      # no points; metadata in reader.mesh.field_data
        for k in range(reader.num_steps):
            reader.read_data(k)                         # only the states at time k
            reader.field_data["glstat/kinetic_energy"]

``meshioplusplus.binout.read_databases(path)`` gives lasso-python's view:
``{"glstat": {"kinetic_energy": array (n_states,), …}, "rwforc/forces": {…}}`` (the metadata
under the key "metadata"). ``meshioplusplus.read("binout")`` gives the first time step."""

import numpy as np

from .._capabilities import register
from ._time_series import TimeSeriesReader as _TimeSeriesReader

__all__ = ["TimeSeriesReader", "read_databases"]


class TimeSeriesReader(_TimeSeriesReader):
    format_name = "binout"


def read_databases(path):
    """{database: {variable: array (n_states, …)}}, states in time order, plus each database's
    metadata as {database: {"metadata": {name: value}}}."""
    out = {}
    with TimeSeriesReader(path) as reader:
        reader.read_points_cells()
        mesh = reader.mesh
        for name, value in list(mesh.field_data.items()):
            database, _, variable = name.partition("/metadata/")
            out.setdefault(database, {}).setdefault("metadata", {})[variable] = value
        series = {}
        for k in range(reader.num_steps):
            reader.read_data(k)
            for name, value in reader.field_data.items():
                database, _, variable = name.rpartition("/")
                series.setdefault(database, {}).setdefault(variable, []).append(np.asarray(value))
    for database, variables in series.items():
        for variable, values in variables.items():
            shapes = {v.shape for v in values}
            if len(shapes) == 1:
                stacked = np.stack(values)
                out.setdefault(database, {})[variable] = stacked[:, 0] if stacked.shape[1:] == (1,) else stacked
            else:
                out.setdefault(database, {})[variable] = values
    return out


register("binout", time_series_reader=TimeSeriesReader, namespace={"read_databases": read_databases})
