# overlays/ holds files for the clients' test trees (a conftest among them): not tests of ours.
collect_ignore = ["overlays"]
