// Gmsh MSH (.msh): reads versions 2.x, 4.0 and 4.1, ASCII and binary; writes 2.2, 4.0 and
// 4.1, ASCII and binary.
//
// What a read produces (blocks, names and dtypes as meshio 5.3.5 gives them):
//   points      (n, 3) float64, in file order; sparse node tags become dense 0-based indices.
//   cells       4.x: one block per element block of the file (one entity, one type), in
//               file order; 2.x: one block per stretch of consecutive elements of one type
//               — or the blocks our writer's $MeshioplusplusBlocks lists (see write()).
//               Node orders are converted to meshio's (see gmsh_element_types).
//   cell_data   "gmsh:geometrical" (the entity tag) per block; "gmsh:physical" (the first
//               physical tag, 0 for none) when the file carries physical information — int32
//               for 2.x, int64 for 4.x; $ElementData / $ElementNodeData as float64 (NaN where
//               an element has no value; ElementNodeData rows hold nodes × components in
//               meshio node order).
//   point_data  $NodeData as float64 (NaN where a node has no value); for 4.x files
//               "gmsh:dim_tags" (n, 2) int64: the entity (dim, tag) each node is classified on.
//   field_data  name → int64 [tag, dim] for each $PhysicalNames entry (meshio's layout).
//   regions     one per physical group, named from $PhysicalNames (else the tag as text),
//               dim = group dimension, tag = physical tag. Dimension-0 groups are Point
//               regions (the nodes of their vertex elements), others Cell regions
//               (block-major cell indices, ascending).
// Data sections: a view with one step, step 0 at time 0 (what meshio writes), keeps the view's
// name. A view with several steps (or one other step or time) gets one array per step,
// "name[step k]" or "name[step k, time t]" (k the integer time-step tag, t the time when it
// is not k), and "name" shows its last step, sharing that step's arrays — the array meshio
// shows under the name. Sections for the same view and step (e.g. one per partition) fill
// the same array.
//   $Periodic (2.x, 4.1) as field_data "gmsh:periodic" (int64: per link dim, tag, master
//               tag, number of affine values, number of node pairs, then the pairs as point
//               indices) and "gmsh:periodic_affine" (float64: the links' affine values in
//               turn); the Python Mesh shows them as meshio's gmsh_periodic. The writer
//               writes them back (2.2, 4.1) and never takes "gmsh:" entries for names.
// Skipped: parametric node coordinates, 4.0's $Periodic, $GhostElements, $Parametrizations,
// $InterpolationScheme, $Entities bounding entities and unknown sections.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/read_selection.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::gmsh {

inline constexpr std::string_view kFormatName = "gmsh";  // as errors name the format

// A read of some of the partitions of a MSH 4.1 file partitioned by Gmsh (gmsh -part N,
// gmsh.model.mesh.partition(N)): one file with $PartitionedEntities, or one split file
// name_k.msh of Mesh.PartitionSplitMeshFiles=1 (which carries the section too). The partitions
// are Gmsh's numbers, 1 … N. Either `partitions` names them, or `ranks` > 0 asks for the
// contiguous share of rank `rank` of `ranks` (the rule of mio.parallel.rank_share: the first
// N % ranks ranks one partition more, ranks past N none), computed from the file's N.
//
// What such a read keeps (see docs/parallel.md):
//   cells       the elements of the partitioned entities owned by the chosen partitions. An
//               entity Gmsh lists in several partitions (curves and points on partition
//               interfaces) is owned by the lowest of them, so every element is read by
//               exactly one share. Ghost cells (Mesh.PartitionCreateGhostCells) are left out
//               unless ghost_cells asks for them (below):
//               in a single file they are only a $GhostElements list of other partitions'
//               elements, in a split file the blocks of its ghost entities, and both are
//               owned cells of another partition.
//   points      the nodes those cells use, in file order.
//   global_ids  point_data (int64): the nodes' Gmsh tags; cell_data (int64, per block): the
//               elements' Gmsh tags (tags are global across partitions and split files).
//   the rest    as the whole read gives it, restricted to the kept cells and points (regions,
//               gmsh:physical / gmsh:geometrical, gmsh:dim_tags, $NodeData / $ElementData;
//               data for elements of other partitions is skipped); $Periodic is left out.
// The whole file is still parsed (MSH has no index to seek a partition by); the arrays are
// allocated for the kept cells, the node coordinates once for all nodes and then compacted.
// A file without $PartitionedEntities, or a partition number outside 1 … N, is a ReadError.
//
// With ghost_cells, the share also holds the ghost cells of its partitions, flagged as VTK
// flags them:
//   cells       also the elements Gmsh made ghosts of a kept partition (Mesh.PartitionCreate-
//               GhostCells): in a single file those $GhostElements lists with a kept ghost
//               partition and an owner that is not kept (the section follows $Elements; it is
//               found by a search of the mapped bytes after the element blocks, so the element pass
//               can keep them), in a split file the blocks of its ghost entities. They come as
//               blocks of their own, in file order.
//   points      also the nodes the ghost cells use.
//   cell_data   "vtkGhostType" uint8 per block: 0 owned, 1 ghost (VTK's DUPLICATECELL).
//   point_data  "vtkGhostType" uint8: 0 on the share that owns the node, 1 (DUPLICATEPOINT) on
//               the others. A node's owner is the lowest partition of the partitioned entity it
//               is classified on (Gmsh lists every partition that meets at an interface entity),
//               the rule of the elements, so every node is owned by exactly one partition. A
//               node on an entity $PartitionedEntities does not list is owned where an owned
//               cell uses it.
struct ReadOptions {
  std::vector<int> partitions;  // Gmsh partition numbers to keep (when ranks == 0)
  int rank = 0;                 // with ranks > 0: keep rank_share(N, ranks, rank)
  int ranks = 0;
  bool ghost_cells = false;     // also the kept partitions' ghost cells, with vtkGhostType
  bool partitioned() const noexcept { return ranks > 0 || !partitions.empty(); }
};

Mesh read(const std::string& path, const ReadOptions& options);

// The registry's read: the whole file (a partitioned file's partitions are selected by
// read(path, ReadOptions), which Python's partitioned read calls through its own binding).
Mesh read(const std::string& path);

// Reading less (read_selection.hpp; gmsh_reader_metadata.cpp): a read that jumps over the data
// sections of views `request` does not name (and with points_only over every element block
// but the vertex ones), and the summary of the section headers (header_only: node blocks,
// element records and data values are jumped over; a Point region's size is -1 where it has
// elements, since only their nodes would tell).
Mesh read_selected(const std::string& path, const ReadRequest& request);
MeshMetadata read_metadata(const std::string& path);

// Options: fmt_version ("4.1" default | "4.0" | "2.2"), binary ("true" default).
// Physical groups come from the regions: each Cell region becomes a physical group (of the
// dimension of its cells) on its elements; a Point region becomes a dimension-0 group on the
// vertex cells of its points when every point has one, and is not written otherwise (added
// vertex elements would read back as a block the mesh did not have; meshio writes no point
// sets either). Elements in no region get no group (physical 0 in 2.2). Without Cell/Point
// regions, "gmsh:physical" cell data and field_data names are used instead. Every field_data
// entry shaped [tag, dim] is written to $PhysicalNames (as meshio does), so field_data reads
// back. "gmsh:geometrical" chooses entity tags when present. In 4.x differently grouped
// cells of one block go to different entities (one element block per stretch). Where the
// cuts above would not give the mesh's blocks back (that case, empty blocks, consecutive
// blocks of one type in 2.2), a $MeshioplusplusBlocks section (text: the number of blocks,
// then "gmsh-type-id count" per block) lists them; the reader restores them from it when it
// describes the elements exactly (Gmsh and meshio skip the section). Side regions are not
// written. MSH 2.2 stores one physical tag per element (the
// first group's). Data arrays named "name[step k…]" are written as step k of view "name"
// (with their time); a plain "name" equal to one of them is the reader's alias, not
// written again.
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::gmsh
