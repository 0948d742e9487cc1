#!/usr/bin/env python3
"""Regenerates samples/bracket.msh, the small mesh the README demo reads.

A 2 x 1 x 1 block with a cylindrical hole, meshed with tetrahedra by Gmsh (pip install gmsh),
with physical groups 'solid' (3-D), 'inlet' and 'walls' (2-D) and 'corner' (a point).
Written as MSH 4.1 ASCII so the sample is readable in a text editor.
"""
import os
import sys

import gmsh

target = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "bracket.msh")
gmsh.initialize()
gmsh.option.setNumber("General.Terminal", 0)
gmsh.model.add("bracket")
box = gmsh.model.occ.addBox(0, 0, 0, 2, 1, 1)
hole = gmsh.model.occ.addCylinder(1, 0.5, -0.1, 0, 0, 1.2, 0.3)
gmsh.model.occ.cut([(3, box)], [(3, hole)])
gmsh.model.occ.synchronize()
volumes = gmsh.model.getEntities(3)
surfaces = gmsh.model.getEntities(2)
gmsh.model.setPhysicalName(3, gmsh.model.addPhysicalGroup(3, [v[1] for v in volumes], 1), "solid")
gmsh.model.setPhysicalName(2, gmsh.model.addPhysicalGroup(2, [surfaces[0][1]], 2), "inlet")
gmsh.model.setPhysicalName(2, gmsh.model.addPhysicalGroup(2, [s[1] for s in surfaces[1:]], 3), "walls")
corner = gmsh.model.getEntities(0)[0][1]
gmsh.model.setPhysicalName(0, gmsh.model.addPhysicalGroup(0, [corner], 4), "corner")
gmsh.option.setNumber("Mesh.MeshSizeMax", 0.15)
gmsh.model.mesh.generate(3)
gmsh.option.setNumber("Mesh.MshFileVersion", 4.1)
gmsh.option.setNumber("Mesh.Binary", 0)
gmsh.write(target)
gmsh.finalize()
