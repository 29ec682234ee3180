package dev.sqlqueue.dashboard;

/** The browser cases on PostgreSQL (127.0.0.1:5432, database test; an unreachable server fails them). */
class DashboardOnPostgresTest extends DashboardBrowserCases {
    @Override
    String database() {
        return "postgresql";
    }
}
