// What the binding files share with module.cpp: a core Mesh as the dict meshioplusplus._conversion
// reads (arrays adopted, not copied), and back.
#pragma once

#include <nanobind/nanobind.h>

#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::bindings {

nanobind::dict mesh_dict(const Mesh& mesh);
Mesh mesh_from_dict(const nanobind::dict& source);
// A name or text from a file: UTF-8 where valid, else Latin-1 (docs/errors.md, "Text and names").
nanobind::str text_from_file(const std::string& bytes);

// Defined in read_selection_bindings.cpp: read with a ReadRequest, read_metadata, apply_read_request.
void bind_read_selection(nanobind::module_& module);

}  // namespace meshioplusplus::bindings
