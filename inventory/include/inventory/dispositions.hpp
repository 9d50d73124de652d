// End of life per asset (issue 12 section 6, table asset_dispositions of migration 0007): what
// became of a node or a component after it left service: back to the vendor under RMA, kept as a
// spare, redeployed, or recycled. Every record stays; the newest one is the asset's current
// disposition and the rest its history.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "inventory/database.hpp"
#include "inventory/types.hpp"

namespace inventory {

inline constexpr std::string_view kDispositions[] = {"rma", "spare", "redeploy", "recycled"};

struct DispositionSpec {
  std::string serial;       // a node's chassis serial or a component's serial
  std::string disposition;  // one of kDispositions
  // rma: ticket and vendor required, shipped_on (YYYY-MM-DD) and the replacement's serial optional
  std::string rma_ticket;
  std::string rma_vendor;
  std::string shipped_on;
  std::string replacement_serial;
  // recycled: recycler and the recycler's certificate reference required, weight optional
  std::string recycler;
  std::string recycler_certificate;
  std::optional<double> weight_kg;
  std::string note;
  std::string recorded_by;
};

struct Disposition {
  Id id = 0;
  std::string serial;
  std::string asset_type;  // "node" or "component"
  std::optional<Id> node_id;
  std::string disposition;
  std::string rma_ticket;
  std::string rma_vendor;
  std::string shipped_on;  // YYYY-MM-DD or empty
  std::string replacement_serial;
  std::string recycler;
  std::string recycler_certificate;
  std::optional<double> weight_kg;
  std::string note;
  std::string recorded_by;
  Timestamp recorded_at;
};

// Pure: the spec's fields for its disposition, each error an InvalidArgument naming the field:
// "invalid_disposition" (disposition), "missing_field" (rma_ticket, rma_vendor, recycler,
// recycler_certificate, recorded_by), "invalid_field" (shipped_on not a calendar date, weight_kg
// not a positive finite number, replacement_serial equal to serial), "field_not_allowed" (an RMA
// field on a recycling and the other way round).
common::Result<void> validateDisposition(const DispositionSpec& spec);

// Records a disposition after validateDisposition(). NotFound "asset_not_found" when the serial is
// neither a node nor a component. Conflict "node_not_sanitized" for a node that is not retired
// (only a decommission with a signed certificate retires it), and "component_in_service" for a
// component installed in a node that is not retired.
common::Result<Disposition> recordDisposition(Database& db, const DispositionSpec& spec);

struct DispositionHistory {
  std::vector<Disposition> records;   // newest first: records[0] is the current disposition
  std::vector<Disposition> replaces;  // RMA records naming this serial as their replacement
};
// The dispositions of one serial (empty lists for a serial that has none).
common::Result<DispositionHistory> dispositionHistory(Database& db, const std::string& serial);

// Per model of a purchase order: its units, and where they are at end of life by each node's
// current disposition. A node counts as retired whatever its disposition.
struct EndOfLifeCount {
  std::string model;
  int units = 0;
  int retired = 0;
  int rma = 0;
  int spare = 0;
  int redeploy = 0;
  int recycled = 0;
};
// NotFound "po_not_found".
common::Result<std::vector<EndOfLifeCount>> endOfLifeCounts(Database& db,
                                                            const std::string& po_number);

}  // namespace inventory
