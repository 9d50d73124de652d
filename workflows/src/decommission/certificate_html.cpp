// The auditors' HTML page of a certificate: readable, self-contained, every value escaped.
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/secret_box.hpp"
#include "workflows/decommission/certificate.hpp"

namespace workflows::decommission {
namespace {

using nlohmann::json;

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// Any JSON value as display text: strings unquoted, objects as their compact JSON.
std::string display(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  return value.dump();
}

void row(std::ostringstream& html, std::string_view label, const json& value) {
  html << "<tr><th>" << escape(label) << "</th><td>" << escape(display(value)) << "</td></tr>\n";
}

void objectTable(std::ostringstream& html, std::string_view title, const json& object) {
  html << "<h2>" << escape(title) << "</h2>\n<table>\n";
  if (object.is_object()) {
    for (const auto& [key, value] : object.items()) {
      if (!value.is_object()) {
        row(html, key, value);
        continue;
      }
      for (const auto& [sub, subvalue] : value.items()) row(html, key + " " + sub, subvalue);
    }
  }
  html << "</table>\n";
}

void evidenceTable(std::ostringstream& html, const json& evidence) {
  html << "<h2>Evidence (SHA-256 of each raw document)</h2>\n<table>\n";
  if (evidence.is_array()) {
    for (const auto& e : evidence) {
      row(html, e.is_object() ? display(e.value("name", json(""))) : "",
          e.is_object() ? e.value("sha256", json("")) : e);
    }
  }
  html << "</table>\n";
}

constexpr std::string_view kStyle =
    "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin-bottom:1em}"
    "th,td{border:1px solid #999;padding:4px 8px;text-align:left}th{background:#eee}"
    "code{font-size:0.9em}";

}  // namespace

common::Result<std::string> certificateHtml(std::string_view json_bytes) {
  auto document = json::parse(json_bytes, nullptr, false);
  if (!document.is_object()) {
    return common::invalidArgument("malformed_certificate", "the certificate is not a JSON object");
  }
  std::ostringstream html;
  html << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       << "<title>Sanitization certificate</title>\n<style>" << kStyle << "</style>\n"
       << "</head>\n<body>\n<h1>Sanitization certificate</h1>\n<table>\n";
  row(html, "Schema", document.value("schema", json("")));
  row(html, "Issued at", document.value("issued_at", json("")));
  row(html, "Signing key id", document.value("key_id", json("")));
  html << "<tr><th>SHA-256 of the certificate JSON</th><td><code>" << common::sha256Hex(json_bytes)
       << "</code></td></tr>\n</table>\n"
       << "<p>This page is a rendering. The signed record is the JSON file; verify it with "
       << "<code>provisioner cert verify</code> or <code>openssl pkeyutl -verify</code> and "
       << "compare its SHA-256 with the one above.</p>\n";
  objectTable(html, "Node", document.value("node", json::object()));
  objectTable(html, "Decommission", document.value("decommission", json::object()));
  const json devices = document.value("devices", json::array());
  std::size_t index = 0;
  for (const auto& device : devices) {
    ++index;
    const std::string serial = device.is_object() ? display(device.value("serial", json(""))) : "";
    objectTable(html, "Device " + std::to_string(index) + ": " + serial, device);
  }
  evidenceTable(html, document.value("evidence", json::array()));
  html << "</body>\n</html>\n";
  return html.str();
}

}  // namespace workflows::decommission
