package dev.sqlqueue.sqlserver.tables;

import dev.sqlqueue.QueueName;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * One row a move claim ({@code moveClaim}, issue 35) returned through its {@code OUTPUT} clause.
 *
 * @param id message id
 * @param token the move claim's token: the negated claim count ({@link SqlServerStatements}, {@code moveClaim})
 * @param attempts deliveries so far (a move claim does not count one)
 * @param priority priority
 * @param enqueuedAt enqueue time (UTC)
 * @param delayMs milliseconds of delay the row had left before the claim, by the database clock; zero or negative
 *     for a ready row
 * @param payload payload bytes
 * @param rawHeaders headers as stored
 */
record MovedRow(long id, long token, int attempts, int priority, Instant enqueuedAt, long delayMs, byte[] payload,
                String rawHeaders) {

    /**
     * Runs the move claim on {@code c} (in the caller's transaction), bounded by {@code seconds} as the claim is.
     *
     * @throws QueryTimeouts.StatementTimeout when the bound passes
     * @throws SQLException as the driver throws it
     */
    static List<MovedRow> claim(Connection c, SqlServerStatements sql, QueueName queue, int n, long leaseMs, int seconds)
            throws SQLException {
        String text = sql.get("moveClaim");
        try (PreparedStatement ps = Jdbc.prepare(c, text, n, queue.value(), (int) leaseMs)) {
            ps.setQueryTimeout(seconds);
            ResultSet rs;
            try {
                rs = ps.executeQuery();
            } catch (java.sql.SQLTimeoutException e) {
                throw new QueryTimeouts.StatementTimeout("moveClaim", text, seconds, e);
            }
            List<MovedRow> out = new ArrayList<>();
            try (rs) {
                while (rs.next()) {
                    out.add(new MovedRow(rs.getLong("id"), rs.getLong("lease_token"), rs.getInt("attempts"),
                            rs.getInt("priority"), ClaimedRow.utc(rs.getObject("enqueued_at", LocalDateTime.class)),
                            delayMs(rs.getObject("prior_visible_at", LocalDateTime.class),
                                    rs.getObject("claimed_at", LocalDateTime.class)),
                            rs.getBytes("payload"), rs.getString("headers")));
                }
            }
            return out;
        }
    }

    private static long delayMs(LocalDateTime priorVisibleAt, LocalDateTime claimedAt) {
        return java.time.Duration.between(claimedAt, priorVisibleAt).toMillis();
    }
}
