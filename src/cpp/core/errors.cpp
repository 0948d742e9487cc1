#include "meshioplusplus/errors.hpp"

namespace meshioplusplus {
namespace {

std::string describe_read_error(const std::string& path, const std::string& format,
                                const std::string& message,
                                std::optional<std::uint64_t> byte_offset,
                                std::optional<std::uint64_t> line) {
  std::string text = path;
  if (line) text += ":" + std::to_string(*line);
  if (byte_offset) text += " (byte " + std::to_string(*byte_offset) + ")";
  text += ": ";
  if (!format.empty()) text += format + ": ";
  return text + message;
}

}  // namespace

ReadError::ReadError(std::string path, std::string format, std::string message,
                     std::optional<std::uint64_t> byte_offset, std::optional<std::uint64_t> line)
    : MeshIOError(describe_read_error(path, format, message, byte_offset, line)),
      path_(std::move(path)),
      format_(std::move(format)),
      reason_(std::move(message)),
      byte_offset_(byte_offset),
      line_(line) {}

WriteError::WriteError(std::string path, std::string format, std::string message)
    : MeshIOError(path + ": " + (format.empty() ? std::string() : format + ": ") + message),
      path_(std::move(path)),
      format_(std::move(format)) {}

}  // namespace meshioplusplus
