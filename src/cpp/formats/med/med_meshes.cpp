// Which mesh of a MED file a read takes and which fields come with it: see med_meshes.hpp.
#include "formats/med/med_meshes.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace meshioplusplus::med {

std::string trimmed(std::string text) {
  if (const auto nul = text.find('\0'); nul != std::string::npos) text.resize(nul);
  while (!text.empty() && text.back() == ' ') text.pop_back();
  while (!text.empty() && text.front() == ' ') text.erase(text.begin());
  return text;
}

std::vector<std::string> mesh_names(const io::hdf5::File& file) {
  if (!file.exists("/ENS_MAA")) file.fail("/ENS_MAA", "missing: not a MED file");
  return file.children("/ENS_MAA");
}

std::string chosen_mesh(const io::hdf5::File& file, const std::string& requested) {
  const std::vector<std::string> meshes = mesh_names(file);
  if (meshes.empty()) file.fail("/ENS_MAA", "holds no mesh");
  if (requested.empty()) return meshes.front();
  for (const std::string& name : meshes)
    if (name == requested) return name;
  std::string listed;
  for (const std::string& name : meshes) listed += (listed.empty() ? "'" : ", '") + name + "'";
  file.fail("/ENS_MAA", "holds no mesh named '" + requested + "'; the file's meshes: " + listed);
}

std::vector<std::string> fields_on(const io::hdf5::File& file, const std::string& mesh) {
  std::vector<std::string> fields;
  if (!file.exists("/CHA")) return fields;
  const std::vector<std::string> meshes = mesh_names(file);
  const std::string first = meshes.empty() ? std::string() : meshes.front();
  for (const std::string& field : file.children("/CHA")) {
    std::string owner = trimmed(file.string_attribute("/CHA/" + field, "MAI").value_or(std::string()));
    if (std::find(meshes.begin(), meshes.end(), owner) == meshes.end()) owner = first;  // as meshio: with the one mesh
    if (owner == mesh) fields.push_back(field);
  }
  return fields;
}

}  // namespace meshioplusplus::med
