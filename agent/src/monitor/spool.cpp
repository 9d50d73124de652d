// The monitor's queue on disk: `<seq>.json` files, 20 digits so that names sort as numbers, and
// `dropped` (how many batches were ever dropped for room).
#include <algorithm>
#include <charconv>
#include <cstdio>

#include "agent/monitor.hpp"
#include "monitor/durable_file.hpp"

namespace agent {
namespace {

constexpr const char* kDroppedFile = "dropped";

std::optional<std::uint64_t> seqOf(const std::filesystem::path& file) {
  if (file.extension() != ".json") return std::nullopt;
  const std::string stem = file.stem().string();
  std::uint64_t seq = 0;
  auto [end, ec] = std::from_chars(stem.data(), stem.data() + stem.size(), seq);
  if (ec != std::errc() || end != stem.data() + stem.size() || seq == 0) return std::nullopt;
  return seq;
}

common::Error folderError(const std::filesystem::path& dir, const std::error_code& ec) {
  return common::unavailable("state_dir_io",
                             "the health queue " + dir.string() + ": " + ec.message());
}

}  // namespace

common::Result<Spool> Spool::open(std::filesystem::path dir, std::size_t max_batches) {
  if (max_batches == 0) {
    return common::invalidArgument("usage", "the queue must hold at least one batch",
                                   "--spool-max-batches");
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return folderError(dir, ec);
  Spool spool(dir, max_batches);
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const auto& path = entry.path();
    if (path.extension() == ".tmp") {
      std::filesystem::remove(path, ec);  // a write a crash interrupted: never renamed, never sent
      continue;
    }
    if (auto seq = seqOf(path)) spool.seqs_.push_back(*seq);
  }
  if (ec) return folderError(dir, ec);
  std::sort(spool.seqs_.begin(), spool.seqs_.end());
  if (!spool.seqs_.empty()) spool.next_seq_ = spool.seqs_.back() + 1;
  if (auto text = monitor::readWholeFile(dir / kDroppedFile)) {
    std::from_chars(text->data(), text->data() + text->size(), spool.dropped_);
  }
  return spool;
}

std::filesystem::path Spool::pathOf(std::uint64_t seq) const {
  char name[32];
  std::snprintf(name, sizeof name, "%020llu.json", static_cast<unsigned long long>(seq));
  return dir_ / name;
}

common::Result<std::size_t> Spool::append(const std::string& batch_json) {
  std::size_t dropped_now = 0;
  while (seqs_.size() >= max_batches_) {
    PROV_TRY(remove(seqs_.front()));
    ++dropped_now;
  }
  if (dropped_now > 0) {
    dropped_ += dropped_now;
    PROV_TRY(monitor::writeFileDurably(dir_ / kDroppedFile, std::to_string(dropped_), 0600));
  }
  const std::uint64_t seq = next_seq_;
  PROV_TRY(monitor::writeFileDurably(pathOf(seq), batch_json, 0600));
  seqs_.push_back(seq);
  next_seq_ = seq + 1;
  return dropped_now;
}

common::Result<std::optional<SpooledBatch>> Spool::oldest() const {
  if (seqs_.empty()) return std::optional<SpooledBatch>();
  PROV_ASSIGN(auto text, monitor::readWholeFile(pathOf(seqs_.front())));
  return std::optional<SpooledBatch>(SpooledBatch{seqs_.front(), std::move(text)});
}

common::Result<void> Spool::remove(std::uint64_t seq) {
  std::error_code ec;
  std::filesystem::remove(pathOf(seq), ec);
  if (ec) return folderError(dir_, ec);
  seqs_.erase(std::remove(seqs_.begin(), seqs_.end(), seq), seqs_.end());
  return common::success();
}

}  // namespace agent
