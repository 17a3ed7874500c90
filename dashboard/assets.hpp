// The dashboard's files, carried inside the binary (gateway/dashboard/,
// embedded at build time): it works offline and loads nothing from
// elsewhere.
#pragma once

#include <optional>
#include <string_view>

namespace dashboard {

struct DashboardAsset {
  std::string_view type;  // Content-Type
  std::string_view body;
};

// "/" (the page), "/dashboard.css", "/dashboard.js" and the modules it imports
// ("/dashboard/*.js"); nullopt for any other path.
std::optional<DashboardAsset> dashboard_asset(std::string_view path);

// The Content-Security-Policy every dashboard answer carries: its own
// script and style only, nothing inline, no frames, no forms.
inline constexpr std::string_view dashboard_csp =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

}  // namespace dashboard
