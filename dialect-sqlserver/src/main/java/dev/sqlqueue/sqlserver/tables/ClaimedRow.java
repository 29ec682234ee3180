package dev.sqlqueue.sqlserver.tables;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * One row returned by the claim's {@code OUTPUT} clause. Times are {@code datetime2} values in UTC
 * ({@code SYSUTCDATETIME()}), read as {@link LocalDateTime} so that no JVM time zone touches them.
 *
 * @param id message id
 * @param token the row's new lease token ({@code claim_count} after the claim)
 * @param attempts attempts including this delivery
 * @param priority priority
 * @param enqueuedAt enqueue time
 * @param priorVisibleAt the visibility the row had before the claim (restored by a transactional release)
 * @param payload payload bytes
 * @param rawHeaders headers as stored
 */
record ClaimedRow(long id, long token, int attempts, int priority, Instant enqueuedAt,
                  LocalDateTime priorVisibleAt, byte[] payload, String rawHeaders) {

    static List<ClaimedRow> readAll(ResultSet rs) throws SQLException {
        List<ClaimedRow> out = new ArrayList<>();
        while (rs.next()) {
            out.add(new ClaimedRow(rs.getLong("id"), rs.getLong("lease_token"), rs.getInt("attempts"),
                    rs.getInt("priority"), utc(rs.getObject("enqueued_at", LocalDateTime.class)),
                    rs.getObject("prior_visible_at", LocalDateTime.class), rs.getBytes("payload"),
                    rs.getString("headers")));
        }
        return out;
    }

    static Instant utc(LocalDateTime t) {
        return t == null ? null : t.toInstant(ZoneOffset.UTC);
    }
}
