package dev.sqlqueue.sqlserver.broker;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.conformance.ConformanceSuite;
import dev.sqlqueue.conformance.ConformanceTarget;
import dev.sqlqueue.spi.QueueBackend;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.testcontainers.containers.MSSQLServerContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.utility.DockerImageName;

/**
 * The conformance suite against the {@code sqlserver-broker} backend in transactional claim mode, on
 * the SQL Server 2022 image through Testcontainers, in a database with Service Broker enabled. Without
 * a Docker engine the whole class is skipped (never passed); the project's machines have none, so this
 * class has not run yet.
 */
@Testcontainers(disabledWithoutDocker = true)
class ServiceBrokerConformanceTest extends ConformanceSuite {
    private static final String DATABASE = "sqlqueue_broker";

    @Container
    static final MSSQLServerContainer<?> SERVER =
            new MSSQLServerContainer<>(DockerImageName.parse("mcr.microsoft.com/mssql/server:2022-latest")).acceptLicense();

    private static boolean prepared;

    private static synchronized String url() {
        if (!prepared) {
            try (Connection c = DriverManager.getConnection(SERVER.getJdbcUrl(), SERVER.getUsername(), SERVER.getPassword());
                 Statement s = c.createStatement()) {
                s.execute("IF DB_ID(N'" + DATABASE + "') IS NULL CREATE DATABASE " + BrokerNames.quote(DATABASE));
                s.execute(ProvisioningStatements.enableBroker(DATABASE));
            } catch (SQLException e) {
                throw new IllegalStateException("cannot prepare the test database", e);
            }
            prepared = true;
        }
        return SERVER.getJdbcUrl() + ";databaseName=" + DATABASE;
    }

    @Override
    protected ConformanceTarget target() {
        return new ConformanceTarget() {
            @Override
            public String name() {
                return "sqlserver-broker";
            }

            @Override
            public QueueConfig config(String uniquePrefix) {
                return QueueConfig.builder().url(url()).user(SERVER.getUsername()).password(SERVER.getPassword())
                        .backend("sqlserver-broker").tablePrefix(uniquePrefix).build();
            }

            @Override
            public void cleanUp(String uniquePrefix) {
                QueueConfig c = config(uniquePrefix).toBuilder().migrate(false).build();
                try (QueueBackend b = new ServiceBrokerProvider().open(c)) {
                    b.dropSchema();
                }
            }
        };
    }

    @Override
    protected ClaimMode mode() {
        return ClaimMode.TRANSACTIONAL;
    }
}
