package dev.sqlqueue.skiplocked;

import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.conformance.ConformanceTarget;
import dev.sqlqueue.conformance.FaultHooks;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;

/**
 * Conformance wiring shared by H2, PostgreSQL and MariaDB: a URL, the raw-row hook through this
 * module's own statements, and schema clean-up with the backend's dropSchema.
 */
abstract class SkipLockedTarget implements ConformanceTarget, FaultHooks {
    final String url;
    final String user;
    final String password;
    final SkipLockedDialect dialect;

    SkipLockedTarget(SkipLockedDialect dialect, String url, String user, String password) {
        this.dialect = dialect;
        this.url = url;
        this.user = user;
        this.password = password;
    }

    @Override
    public QueueConfig config(String uniquePrefix) {
        return QueueConfig.builder().url(url).user(user).password(password).tablePrefix(uniquePrefix)
                .poolSize(12).build();
    }

    @Override
    public FaultHooks faults() {
        return this;
    }

    @Override
    public void cleanUp(String uniquePrefix) {
        SkipLockedStatements sql = new SkipLockedStatements(dialect, uniquePrefix);
        try (Connection c = DriverManager.getConnection(url, user, password); Statement st = c.createStatement()) {
            c.setAutoCommit(true);
            for (String s : sql.dropSchema) {
                st.execute(s);
            }
            if (sql.dropFunction != null) {
                st.execute(sql.dropFunction);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("clean-up of prefix " + uniquePrefix + " failed", e);
        }
    }

    @Override
    public Optional<String> rawInsertUnavailable() {
        return Optional.empty();
    }

    @Override
    public void insertRawMessage(QueueConfig config, QueueName queue, byte[] payload, String rawHeaders) throws SQLException {
        SkipLockedStatements sql = new SkipLockedStatements(dialect, config.tablePrefix());
        try (Connection c = openConnection(config); PreparedStatement ps = c.prepareStatement(sql.rawInsert)) {
            c.setAutoCommit(true);
            ps.setString(1, queue.value());
            ps.setInt(2, 0);
            ps.setString(3, rawHeaders);
            ps.setBytes(4, payload);
            ps.executeUpdate();
        }
    }

    @Override
    public Connection openConnection(QueueConfig config) throws SQLException {
        return DriverManager.getConnection(url, user, password);
    }
}
