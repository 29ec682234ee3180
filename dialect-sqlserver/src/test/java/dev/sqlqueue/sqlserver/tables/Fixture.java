package dev.sqlqueue.sqlserver.tables;

import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A backend wired to a {@link RecordingJdbc} double, with a recording back-off that never sleeps. */
final class Fixture {
    static final LocalDateTime T0 = LocalDateTime.of(2026, 1, 2, 3, 4, 5, 600_000_000);

    final SqlServerStatements sql = new SqlServerStatements("sqlq_", "dbo", ClaimOrder.FIFO);
    final RecordingJdbc jdbc = new RecordingJdbc(sql);
    final List<Integer> pauses = new ArrayList<>();
    final SqlServerQueueBackend backend;

    Fixture(boolean history) {
        Sessions sessions = new Sessions(jdbc.dataSource(), 3, retry -> pauses.add(retry));
        backend = new SqlServerQueueBackend(sql, sessions, history, () -> { }, null, ClaimOrder.FIFO);
    }

    /** A row as the claim's OUTPUT clause returns it. */
    static Map<String, Object> claimed(long id, long token, int attempts, String payload, String headers) {
        return RecordingJdbc.row("id", id, "lease_token", token, "attempts", attempts, "priority", 0,
                "enqueued_at", T0, "prior_visible_at", T0.plusSeconds(1), "payload",
                payload.getBytes(StandardCharsets.UTF_8), "headers", headers);
    }

    /** Every connection handed out was closed with its isolation and auto-commit as they came. */
    boolean allConnectionsReturnedAsTheyCame() {
        return jdbc.connections.stream().allMatch(c -> c.closed && c.isolation == jdbc.initialIsolation
                && c.autoCommit == jdbc.initialAutoCommit && c.networkTimeout == 0) && jdbc.openStatements == 0;
    }
}
