#include "inventory/types.hpp"

#include <algorithm>

namespace inventory {

bool isNodeState(std::string_view s) {
  return std::find(std::begin(kNodeStates), std::end(kNodeStates), s) != std::end(kNodeStates);
}

bool isComponentKind(std::string_view s) {
  return std::find(std::begin(kComponentKinds), std::end(kComponentKinds), s) !=
         std::end(kComponentKinds);
}

}  // namespace inventory
