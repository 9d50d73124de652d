// Matches request paths against route patterns with `{name}` segments (internal to the server).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "provisioner/http/server.hpp"

namespace provisioner::http {

struct RouteMatch {
  const RouteSpec* spec = nullptr;
  std::map<std::string, std::string> params;
};

struct RouteLookup {
  std::optional<RouteMatch> match;
  std::vector<Method> allowed;  // methods registered for the path: the Allow header of a 405
};

class Router {
 public:
  // Validates the pattern; the error says what is wrong with it.
  common::Result<void> add(RouteSpec spec);

  // The most specific route for the method and path (a literal segment beats a parameter);
  // with no match, `allowed` lists the methods the path does have (empty: unknown path).
  RouteLookup find(std::optional<Method> method, std::string_view path) const;

 private:
  struct Segment {
    std::string text;  // the literal, or the parameter name
    bool parameter = false;
  };
  struct Route {
    RouteSpec spec;
    std::vector<Segment> segments;
  };

  static bool matches(const Route& route, const std::vector<std::string_view>& parts);
  static bool moreSpecific(const Route& a, const Route& b);

  std::vector<Route> routes_;
};

}  // namespace provisioner::http
