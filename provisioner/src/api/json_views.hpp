// How inventory records look in API responses (docs/api.md). One place per record type.
#pragma once

#include <nlohmann/json.hpp>

#include "inventory/access.hpp"
#include "inventory/assets.hpp"
#include "inventory/purchase_orders.hpp"
#include "inventory/types.hpp"

namespace provisioner::api {

// A text field that is empty when unset, as JSON: null then.
nlohmann::json textOrNull(const std::string& text);

nlohmann::json toJson(const inventory::Site& site);
nlohmann::json toJson(const inventory::Rack& rack);
nlohmann::json toJson(const inventory::Node& node);
nlohmann::json toJson(const inventory::Component& component);
nlohmann::json toJson(const inventory::NodeEvent& event);
nlohmann::json toJson(const inventory::NodeDetail& detail);
nlohmann::json toJson(const inventory::ComponentReportOutcome& outcome);
nlohmann::json toJson(const inventory::LineItem& item);
nlohmann::json toJson(const inventory::ExpectedAsset& asset);
nlohmann::json toJson(const inventory::PurchaseOrderSummary& summary);
nlohmann::json toJson(const inventory::PurchaseOrder& po);
nlohmann::json toJson(const inventory::Reconciliation& reconciliation);
nlohmann::json toJson(const inventory::Asset& asset);
nlohmann::json toJson(const inventory::ApiToken& token);
nlohmann::json toJson(const inventory::AuditEntry& entry);

// {"items": [...], "next_cursor": "..."|null}
template <class T>
nlohmann::json pageJson(const inventory::Page<T>& page);

}  // namespace provisioner::api
