package dev.sqlqueue.teradata;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.conformance.ConformanceSuite;
import dev.sqlqueue.conformance.ConformanceTarget;
import dev.sqlqueue.conformance.FaultHooks;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Optional;

/**
 * The shared conformance suite against a real Teradata system, in transactional claim mode. It runs
 * only when {@code SQLQUEUE_TERADATA_URL} is set (with {@code SQLQUEUE_TERADATA_USER},
 * {@code SQLQUEUE_TERADATA_PASSWORD} and optionally {@code SQLQUEUE_TERADATA_DATABASE}); otherwise every
 * case reports itself skipped with the reason, never passed. No Teradata system exists on the project's
 * machines, so there this class is always skipped. See docs/backends/teradata.md for Vantage Express.
 */
class TeradataConformanceTest extends ConformanceSuite {
    static final String URL = System.getenv("SQLQUEUE_TERADATA_URL");
    static final String USER = System.getenv("SQLQUEUE_TERADATA_USER");
    static final String PASSWORD = System.getenv("SQLQUEUE_TERADATA_PASSWORD");
    static final String DATABASE = System.getenv("SQLQUEUE_TERADATA_DATABASE");

    @Override
    protected ClaimMode mode() {
        return ClaimMode.TRANSACTIONAL;
    }

    @Override
    protected ConformanceTarget target() {
        return new Target();
    }

    static final class Target implements ConformanceTarget {
        @Override
        public String name() {
            return "teradata";
        }

        @Override
        public Optional<String> unavailableReason() {
            if (URL == null || URL.isBlank()) {
                return Optional.of("SQLQUEUE_TERADATA_URL is not set: no Teradata system to test against");
            }
            try {
                Class.forName(TeradataProvider.DRIVER_CLASS);
            } catch (ClassNotFoundException e) {
                return Optional.of("the Teradata JDBC driver is not on the test class path");
            }
            return Optional.empty();
        }

        @Override
        public QueueConfig config(String uniquePrefix) {
            QueueConfig.Builder b = QueueConfig.builder().url(URL).user(USER).password(PASSWORD)
                    .tablePrefix(uniquePrefix).poolSize(12);
            if (DATABASE != null && !DATABASE.isBlank()) {
                b.option("teradata.database", DATABASE);
            }
            return b.build();
        }

        @Override
        public FaultHooks faults() {
            return new FaultHooks() {
                @Override
                public Optional<String> rawInsertUnavailable() {
                    return Optional.empty();
                }

                @Override
                public void insertRawMessage(QueueConfig config, QueueName queue, byte[] payload, String rawHeaders)
                        throws Exception {
                    try (Connection c = openConnection(config)) {
                        c.setAutoCommit(false);
                        String db = config.option("teradata.database", null);
                        if (db == null) {
                            try (Statement st = c.createStatement();
                                 ResultSet rs = st.executeQuery(TeradataStatements.currentDatabase())) {
                                rs.next();
                                db = rs.getString(1).trim();
                            }
                        }
                        TeradataNames n = TeradataNames.of(config.tablePrefix(), db, queue);
                        try (PreparedStatement ps = c.prepareStatement(TeradataStatements.insertMessage(n))) {
                            ps.setString(1, rawHeaders);
                            ps.setBytes(2, payload);
                            ps.executeUpdate();
                        }
                        c.commit();
                    }
                }
            };
        }

        @Override
        public void cleanUp(String uniquePrefix) {
            try (SqlQueue q = SqlQueue.open(config(uniquePrefix))) {
                q.dropSchema();
            }
        }
    }
}
