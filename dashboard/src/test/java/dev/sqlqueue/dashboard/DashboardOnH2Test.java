package dev.sqlqueue.dashboard;

import java.nio.file.Path;

/** The browser cases on H2 (embedded); they also take the screenshots of docs/dashboard.md (target/dashboard-screenshots). */
class DashboardOnH2Test extends DashboardBrowserCases {
    @Override
    String database() {
        return "h2";
    }

    @Override
    Path screenshots() {
        return Path.of("target", "dashboard-screenshots");
    }
}
