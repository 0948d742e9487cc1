"""Tables the Exodus and MED readers keep as text (``string_field_data`` in the core) and
meshio keeps as Mesh attributes.

* MED families: ``"med:point_tags"`` / ``"med:cell_tags"``, one ``"<number>\\t<group>\\t…"``
  row per family (``src/cpp/formats/med/med.hpp``) ↔ meshio's ``mesh.point_tags`` /
  ``mesh.cell_tags`` (``{number: [group, …]}``).
* Exodus records: ``"exodus:qa_records"`` (four strings per record) and
  ``"exodus:info_records"`` → meshio's ``mesh.info`` (the QA strings, then the info lines).

The conversion to and from the core moves them, so they never show in ``field_data``.
"""

MED_TABLES = {"point_tags": "med:point_tags", "cell_tags": "med:cell_tags"}
EXODUS_RECORDS = ("exodus:qa_records", "exodus:info_records")


def _family_dict(rows):
    families = {}
    for row in rows:
        number, *groups = str(row).split("\t")
        families[int(number)] = groups
    return families


def pop_tables(field_data):
    """Removes the tables from ``field_data``; the Mesh attributes they become (name → value)."""
    attributes = {}
    for attribute, key in MED_TABLES.items():
        if key in field_data:
            attributes[attribute] = _family_dict(field_data.pop(key))
    records = [str(text) for key in EXODUS_RECORDS if key in field_data for text in field_data.pop(key)]
    if records:
        attributes["info"] = records
    return attributes


def table_fields(mesh):
    """The core's string_field_data entries for ``mesh.point_tags`` / ``mesh.cell_tags``."""
    fields = {}
    for attribute, key in MED_TABLES.items():
        families = getattr(mesh, attribute, None)
        if isinstance(families, dict) and families:
            fields[key] = ["\t".join([str(int(number)), *map(str, groups)]) for number, groups in families.items()]
    return fields
