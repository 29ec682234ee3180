package dev.sqlqueue.cli.kit;

import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.conformance.FaultHooks;
import dev.sqlqueue.conformance.kit.KitHooks;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Optional;

/**
 * A {@link KitHooks} extension as a backend would ship one, registered for these tests only: the
 * raw-row hook for H2 (the layout of dialect-skiplocked's H2 migration), so the kit runs C16 on H2
 * instead of skipping it. Proves the ServiceLoader path of the kit.
 */
public final class H2RawRowKitHooks implements KitHooks {
    @Override
    public String backend() {
        return "h2";
    }

    @Override
    public FaultHooks hooks(QueueConfig base) {
        return new FaultHooks() {
            @Override
            public Optional<String> rawInsertUnavailable() {
                return Optional.empty();
            }

            @Override
            public void insertRawMessage(QueueConfig config, QueueName queue, byte[] payload, String rawHeaders)
                    throws SQLException {
                String p = config.tablePrefix();
                String now = "\"" + p + "now_ms\"()";
                try (Connection c = DriverManager.getConnection(config.url(), config.user(), config.password());
                     PreparedStatement ps = c.prepareStatement("INSERT INTO \"" + p + "message\""
                             + " (queue, priority, visible_at, enqueued_at, attempts, headers, payload)"
                             + " VALUES (?, 0, " + now + ", " + now + ", 0, ?, ?)")) {
                    c.setAutoCommit(true);
                    ps.setString(1, queue.value());
                    ps.setString(2, rawHeaders);
                    ps.setBytes(3, payload);
                    ps.executeUpdate();
                }
            }
        };
    }
}
