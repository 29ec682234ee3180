package dev.sqlqueue.sqlserver.tables;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.conformance.ConformanceSuite;
import dev.sqlqueue.conformance.ConformanceTarget;
import dev.sqlqueue.conformance.FaultHooks;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import org.junit.jupiter.api.Nested;
import org.testcontainers.containers.MSSQLServerContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.utility.DockerImageName;

/**
 * The conformance suite against SQL Server 2022 in a Testcontainers container (the official image,
 * EULA accepted), in both claim modes, once in a database with the default locking READ COMMITTED and
 * once in a database with {@code READ_COMMITTED_SNAPSHOT ON} and the {@code priority-first} ordering
 * (so the priority case runs there; the default fifo ordering does not declare priority), and once more
 * under locking READ COMMITTED with the {@code lifo} ordering and the {@code heap} layout (each database
 * holds its own prefixes, so the layouts do not meet). Needs a Docker engine: without one
 * ({@code disabledWithoutDocker}) every class reports itself skipped. The machines this project is
 * developed on have no Docker engine, so these cases have not been run there.
 */
@Testcontainers(disabledWithoutDocker = true)
class SqlServerConformanceTest {
    @Container
    static final MSSQLServerContainer<?> SERVER =
            new MSSQLServerContainer<>(DockerImageName.parse("mcr.microsoft.com/mssql/server:2022-latest")).acceptLicense();

    private static final Target LOCKING = new Target("sqlqueue_locking", false, "fifo", "clustered");
    private static final Target RCSI = new Target("sqlqueue_rcsi", true, "priority-first", "clustered");
    /** Review of the queue-table backend, tests gap 5: the lifo ordering and the heap layout, under locking READ COMMITTED. */
    private static final Target LOCKING_HEAP_LIFO = new Target("sqlqueue_locking_heap", false, "lifo", "heap");

    @Nested
    class Lease extends ConformanceSuite {
        @Override
        protected ConformanceTarget target() {
            return LOCKING;
        }

        @Override
        protected ClaimMode mode() {
            return ClaimMode.LEASE;
        }
    }

    @Nested
    class Transactional extends ConformanceSuite {
        @Override
        protected ConformanceTarget target() {
            return LOCKING;
        }

        @Override
        protected ClaimMode mode() {
            return ClaimMode.TRANSACTIONAL;
        }
    }

    @Nested
    class LeaseUnderReadCommittedSnapshot extends ConformanceSuite {
        @Override
        protected ConformanceTarget target() {
            return RCSI;
        }

        @Override
        protected ClaimMode mode() {
            return ClaimMode.LEASE;
        }
    }

    @Nested
    class TransactionalUnderReadCommittedSnapshot extends ConformanceSuite {
        @Override
        protected ConformanceTarget target() {
            return RCSI;
        }

        @Override
        protected ClaimMode mode() {
            return ClaimMode.TRANSACTIONAL;
        }
    }

    @Nested
    class LeaseOnAHeapWithLifo extends ConformanceSuite {
        @Override
        protected ConformanceTarget target() {
            return LOCKING_HEAP_LIFO;
        }

        @Override
        protected ClaimMode mode() {
            return ClaimMode.LEASE;
        }
    }

    @Nested
    class TransactionalOnAHeapWithLifo extends ConformanceSuite {
        @Override
        protected ConformanceTarget target() {
            return LOCKING_HEAP_LIFO;
        }

        @Override
        protected ClaimMode mode() {
            return ClaimMode.TRANSACTIONAL;
        }
    }

    /** One database of the container; sessions are tagged with an application name per prefix. */
    static final class Target implements ConformanceTarget, FaultHooks {
        private final String database;
        private final boolean rcsi;
        private final String ordering;
        private final String layout;
        private boolean created;

        Target(String database, boolean rcsi, String ordering, String layout) {
            this.database = database;
            this.rcsi = rcsi;
            this.ordering = ordering;
            this.layout = layout;
        }

        @Override
        public String name() {
            return "sqlserver (" + (rcsi ? "READ_COMMITTED_SNAPSHOT ON" : "locking READ COMMITTED") + ", " + ordering + ", "
                    + layout + ")";
        }

        @Override
        public Optional<String> unavailableReason() {
            return SERVER.isRunning() ? Optional.empty() : Optional.of("the SQL Server container is not running");
        }

        private synchronized void createDatabase() {
            if (created) {
                return;
            }
            try (Connection c = DriverManager.getConnection(SERVER.getJdbcUrl(), SERVER.getUsername(), SERVER.getPassword());
                 Statement s = c.createStatement()) {
                String db = SqlServerNames.quote(database);
                s.execute("IF DB_ID(N'" + database + "') IS NULL CREATE DATABASE " + db);
                if (rcsi) {
                    s.execute("ALTER DATABASE " + db + " SET READ_COMMITTED_SNAPSHOT ON WITH ROLLBACK IMMEDIATE");
                }
                created = true;
            } catch (SQLException e) {
                throw new IllegalStateException("creating test database " + database, e);
            }
        }

        private static String applicationName(String prefix) {
            return "sqlqueue-test-" + prefix;
        }

        @Override
        public QueueConfig config(String uniquePrefix) {
            createDatabase();
            return QueueConfig.builder()
                    .url(SERVER.getJdbcUrl() + ";databaseName=" + database + ";applicationName=" + applicationName(uniquePrefix))
                    .user(SERVER.getUsername()).password(SERVER.getPassword())
                    .tablePrefix(uniquePrefix).poolSize(20)
                    .option("ordering", ordering).option("layout", layout).build();
        }

        @Override
        public FaultHooks faults() {
            return this;
        }

        @Override
        public Optional<String> killSessionsUnavailable() {
            return Optional.empty();
        }

        /** {@code KILL} every session whose program_name is the config's application name. */
        @Override
        public int killSessions(QueueConfig config) throws SQLException {
            String app = config.url().substring(config.url().indexOf(";applicationName=") + ";applicationName=".length());
            try (Connection c = DriverManager.getConnection(SERVER.getJdbcUrl(), SERVER.getUsername(), SERVER.getPassword())) {
                return SqlServerTestHooks.killSessions(c, app);
            }
        }

        @Override
        public Optional<String> rawInsertUnavailable() {
            return Optional.empty();
        }

        /** Writes the row with the dialect's own enqueue statement text, headers bound as given. */
        @Override
        public void insertRawMessage(QueueConfig config, QueueName queue, byte[] payload, String rawHeaders) throws SQLException {
            try (Connection c = openConnection(config)) {
                SqlServerTestHooks.insertRawMessage(c, config.tablePrefix(), queue, payload, rawHeaders);
            }
        }

        /** Runs the dialect's own {@code dropSchema} statement for the prefix. */
        @Override
        public void cleanUp(String uniquePrefix) {
            if (!SERVER.isRunning()) {
                return;
            }
            try (Connection c = DriverManager.getConnection(SERVER.getJdbcUrl() + ";databaseName=" + database,
                    SERVER.getUsername(), SERVER.getPassword())) {
                SqlServerTestHooks.dropSchema(c, uniquePrefix);
            } catch (SQLException e) {
                throw new IllegalStateException("cleaning up prefix " + uniquePrefix, e);
            }
        }
    }
}
