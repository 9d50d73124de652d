#include "router.hpp"

#include <algorithm>
#include <set>

namespace provisioner::http {
namespace {

// "/a/b/" -> {"a", "b", ""}; "/" -> {}. Empty segments are kept so "/a//b" matches nothing.
std::vector<std::string_view> splitPath(std::string_view path) {
  std::vector<std::string_view> parts;
  if (path.size() <= 1) return parts;
  path.remove_prefix(1);
  while (true) {
    const auto slash = path.find('/');
    parts.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return parts;
}

bool validParameterName(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

common::Error badSpec(const RouteSpec& spec, const std::string& why) {
  return common::internalError("route '" + spec.name + "' (" + spec.pattern + "): " + why);
}

}  // namespace

common::Result<void> Router::add(RouteSpec spec) {
  if (spec.name.empty()) return badSpec(spec, "the route has no name");
  if (!spec.handler) return badSpec(spec, "the route has no handler");
  if (!spec.pattern.starts_with('/')) return badSpec(spec, "the pattern must start with '/'");
  Route route;
  std::set<std::string_view> names;
  for (auto part : splitPath(spec.pattern)) {
    Segment segment;
    if (part.starts_with('{') && part.ends_with('}')) {
      part = part.substr(1, part.size() - 2);
      if (!validParameterName(part)) return badSpec(spec, "bad parameter name");
      if (!names.insert(part).second) return badSpec(spec, "repeated parameter name");
      segment.parameter = true;
    } else if (part.empty() || part.find_first_of("{}") != std::string_view::npos) {
      return badSpec(spec, "empty segment or stray brace");
    }
    segment.text = std::string(part);
    route.segments.push_back(std::move(segment));
  }
  for (const auto& existing : routes_) {
    if (existing.spec.method != spec.method || existing.segments.size() != route.segments.size())
      continue;
    const bool same_shape =
        std::equal(existing.segments.begin(), existing.segments.end(), route.segments.begin(),
                   [](const Segment& a, const Segment& b) {
                     return a.parameter == b.parameter && (a.parameter || a.text == b.text);
                   });
    if (same_shape) return badSpec(spec, "same method and pattern as '" + existing.spec.name + "'");
  }
  route.spec = std::move(spec);
  routes_.push_back(std::move(route));
  return common::success();
}

bool Router::matches(const Route& route, const std::vector<std::string_view>& parts) {
  if (route.segments.size() != parts.size()) return false;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto& segment = route.segments[i];
    if (segment.parameter ? parts[i].empty() : segment.text != parts[i]) return false;
  }
  return true;
}

bool Router::moreSpecific(const Route& a, const Route& b) {
  for (std::size_t i = 0; i < a.segments.size(); ++i) {
    if (a.segments[i].parameter != b.segments[i].parameter) return !a.segments[i].parameter;
  }
  return false;
}

RouteLookup Router::find(std::optional<Method> method, std::string_view path) const {
  RouteLookup lookup;
  if (!path.starts_with('/')) return lookup;  // "*" of OPTIONS, or garbage
  const auto parts = splitPath(path);
  const Route* best = nullptr;
  for (const auto& route : routes_) {
    if (!matches(route, parts)) continue;
    if (method && route.spec.method == *method) {
      if (best == nullptr || moreSpecific(route, *best)) best = &route;
    } else if (std::find(lookup.allowed.begin(), lookup.allowed.end(), route.spec.method) ==
               lookup.allowed.end()) {
      lookup.allowed.push_back(route.spec.method);
    }
  }
  if (best == nullptr) {
    std::sort(lookup.allowed.begin(), lookup.allowed.end());
    return lookup;
  }
  lookup.allowed.clear();
  RouteMatch match{&best->spec, {}};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (best->segments[i].parameter) match.params.emplace(best->segments[i].text, parts[i]);
  }
  lookup.match = std::move(match);
  return lookup;
}

}  // namespace provisioner::http
