package dev.sqlqueue.teradata;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;

/**
 * One row taken by {@code SELECT AND CONSUME}, kept in memory until its claim ends because a nack,
 * a release in a partly committed claim, or a dead letter writes it again.
 *
 * @param qits the queue insertion timestamp the row had (wall clock of the session zone, as stored)
 * @param id the message id ({@code msg_id}, or {@code seq} for a first enqueue)
 * @param attempts failed deliveries before this one
 * @param enqueuedAt the original enqueue time
 * @param lastError the last error, or null
 * @param headers the header text as stored (possibly malformed)
 * @param payload the payload bytes
 */
record Consumed(LocalDateTime qits, long id, int attempts, LocalDateTime enqueuedAt, String lastError, String headers,
                byte[] payload) {

    /** Reads the columns of {@link TeradataStatements#CONSUMED_COLUMNS} from the current row. */
    static Consumed read(ResultSet rs) throws SQLException {
        long seq = rs.getLong(2);
        long msgId = rs.getLong(3);
        boolean firstEnqueue = rs.wasNull();
        String headers = rs.getString(7);
        byte[] payload = rs.getBytes(8);
        return new Consumed(JdbcTime.get(rs, 1), firstEnqueue ? seq : msgId, rs.getInt(4), JdbcTime.get(rs, 5),
                rs.getString(6), headers == null ? "" : headers, payload == null ? new byte[0] : payload);
    }
}
