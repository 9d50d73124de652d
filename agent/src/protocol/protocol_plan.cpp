// Burn-in plans and tasks on the wire.
#include <set>

#include <nlohmann/json.hpp>

#include "agent/protocol.hpp"
#include "protocol/json_fields.hpp"
#include "protocol/wipe_json.hpp"

namespace agent {

using common::Result;
using json_fields::Need;
using json_fields::ObjectReader;

namespace {

constexpr double kMaxDurationS = 86400;
constexpr std::size_t kMaxPlanTests = 32;

Result<double> readThreshold(const ObjectReader& reader, std::string_view key, double fallback) {
  double value = fallback;
  PROV_TRY(reader.readDouble(key, value, 0, 1, Need::kOptional));
  if (value <= 0) return reader.error(key, "must be a fraction of nominal in (0, 1]");
  return value;
}

// A test is {"name": "compute", "duration_s": 10, "threshold": 0.9} or just "compute".
Result<PlanTest> parsePlanTest(const nlohmann::json& value, std::string path, std::string code) {
  PlanTest test;
  if (const auto* name = value.get_ptr<const std::string*>()) {
    if (!isKnownTest(*name)) {
      return common::invalidArgument(code, path + ": unknown test", path);
    }
    test.name = *name;
    return test;
  }
  ObjectReader reader(value, std::move(path), std::move(code));
  PROV_TRY(reader.requireObject());
  PROV_TRY(reader.readString("name", test.name, Need::kRequired, /*allow_empty=*/false));
  if (!isKnownTest(test.name)) return reader.error("name", "unknown test '" + test.name + "'");
  PROV_TRY(reader.readDouble("duration_s", test.duration_s, 0, kMaxDurationS, Need::kOptional));
  if (test.duration_s <= 0) return reader.error("duration_s", "must be in (0, 86400] seconds");
  if (reader.find("threshold") != nullptr) {
    PROV_ASSIGN(test.threshold, readThreshold(reader, "threshold", 1));
  }
  return test;
}

Result<std::vector<PlanTest>> parsePlanTests(const ObjectReader& reader) {
  PROV_ASSIGN(const nlohmann::json* array,
              reader.readArray("tests", kMaxPlanTests, Need::kRequired));
  if (array->empty()) return reader.error("tests", "must name at least one test");
  std::vector<PlanTest> tests;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < array->size(); ++i) {
    std::string path = reader.pathOf("tests", i);
    PROV_ASSIGN(auto test, parsePlanTest((*array)[i], path, reader.code()));
    if (!seen.insert(test.name).second) {
      return common::invalidArgument(reader.code(), path + ": test '" + test.name + "' is repeated",
                                     path);
    }
    tests.push_back(std::move(test));
  }
  return tests;
}

Result<BurnInPlan> parsePlanAt(const nlohmann::json& object, std::string path, std::string code) {
  ObjectReader reader(object, std::move(path), std::move(code));
  PROV_TRY(reader.requireObject());
  BurnInPlan plan;
  PROV_ASSIGN(plan.tests, parsePlanTests(reader));
  PROV_ASSIGN(plan.default_threshold,
              readThreshold(reader, "default_threshold", plan.default_threshold));
  PROV_TRY(reader.readDouble("outlier_z", plan.outlier_z, -100, 0, Need::kOptional));
  if (plan.outlier_z >= 0) return reader.error("outlier_z", "must be negative");
  PROV_TRY(reader.readInt("min_batch_size", plan.min_batch_size, 2, 1000000, Need::kOptional));
  PROV_TRY(
      reader.readDouble("outlier_min_spread", plan.outlier_min_spread, 0, 0.5, Need::kOptional));
  PROV_TRY(reader.readInt("expected_gpus", plan.expected_gpus, 0, 64, Need::kOptional));
  PROV_TRY(reader.readInt("max_temperature_c", plan.max_temperature_c, 1, 150, Need::kOptional));
  PROV_TRY(reader.readUnsigned("max_corrected_ecc", plan.max_corrected_ecc, Need::kOptional,
                               1ULL << 40));
  return plan;
}

Result<TaskKind> parseTaskKind(const ObjectReader& reader) {
  std::string kind;
  PROV_TRY(reader.readString("kind", kind, Need::kRequired));
  for (TaskKind candidate : {TaskKind::kNone, TaskKind::kBurnIn, TaskKind::kWipe}) {
    if (kind == toString(candidate)) return candidate;
  }
  return reader.error("kind", "must be one of none, burn_in, wipe");
}

}  // namespace

BurnInPlan defaultBurnInPlan() {
  BurnInPlan plan;
  for (std::string_view name :
       {kTestCompute, kTestHbmBandwidth, kTestPcieH2D, kTestPcieD2H, kTestPeerBandwidth}) {
    plan.tests.push_back(PlanTest{std::string(name), 10, std::nullopt});
  }
  return plan;
}

Result<BurnInPlan> parseBurnInPlan(const nlohmann::json& object) {
  return parsePlanAt(object, "", "invalid_plan");
}

nlohmann::json toJson(const BurnInPlan& plan) {
  nlohmann::json tests = nlohmann::json::array();
  for (const auto& test : plan.tests) {
    nlohmann::json item = {{"name", test.name}, {"duration_s", test.duration_s}};
    if (test.threshold) item["threshold"] = *test.threshold;
    tests.push_back(std::move(item));
  }
  return {{"tests", std::move(tests)},
          {"default_threshold", plan.default_threshold},
          {"outlier_z", plan.outlier_z},
          {"min_batch_size", plan.min_batch_size},
          {"outlier_min_spread", plan.outlier_min_spread},
          {"expected_gpus", plan.expected_gpus},
          {"max_temperature_c", plan.max_temperature_c},
          {"max_corrected_ecc", plan.max_corrected_ecc}};
}

nlohmann::json toJson(const Task& task) {
  nlohmann::json out = {{"id", task.id}, {"kind", toString(task.kind)}};
  if (task.kind == TaskKind::kBurnIn) out["plan"] = toJson(task.plan);
  if (task.kind == TaskKind::kWipe) out["wipe"] = toJson(task.wipe);
  return out;
}

Result<Task> parseTask(const nlohmann::json& object) {
  ObjectReader reader(object, "", "invalid_task");
  PROV_TRY(reader.requireObject());
  Task task;
  PROV_ASSIGN(task.kind, parseTaskKind(reader));
  std::int64_t min_id = task.kind == TaskKind::kNone ? 0 : 1;  // "none" carries id 0
  PROV_TRY(reader.readInt("id", task.id, min_id, INT64_MAX, Need::kRequired));
  if (task.kind == TaskKind::kWipe) {
    const nlohmann::json* wipe = reader.find("wipe");
    if (wipe == nullptr) return reader.error("wipe", "is required for a wipe task");
    PROV_ASSIGN(task.wipe, wipe_json::parsePlanAt(*wipe, reader.pathOf("wipe"), reader.code()));
    return task;
  }
  if (task.kind != TaskKind::kBurnIn) return task;
  const nlohmann::json* plan = reader.find("plan");
  if (plan == nullptr) return reader.error("plan", "is required for a burn_in task");
  PROV_ASSIGN(task.plan, parsePlanAt(*plan, reader.pathOf("plan"), reader.code()));
  return task;
}

}  // namespace agent
