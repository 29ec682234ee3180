package dev.sqlqueue.teradata;

import dev.sqlqueue.spi.HeaderCodec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;

/**
 * Writes a consumed row again: back to the queue (nack, release) or into the dead-letter table. Every
 * write is one single-row INSERT in the caller's open transaction. Texts the library writes itself (the
 * nack error, the dead-letter reason) pass through {@link #storableText}, so a settle never fails on
 * them with error 6706. Stateless.
 */
final class RowWriter {
    private RowWriter() {
    }

    /** Nack: back to the tail with a new QITS and {@code attempts}. */
    static void reinsert(Connection c, TeradataNames n, Consumed row, int attempts, String error, int seconds)
            throws SQLException {
        String sql = TeradataStatements.reinsert(n);
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, row.id());
            ps.setInt(2, attempts);
            JdbcTime.set(ps, 3, row.enqueuedAt());
            text(ps, 4, storableText(error));
            ps.setString(5, row.headers());
            ps.setBytes(6, row.payload());
            QueryTimeouts.run(ps, "reinsert", sql, seconds, ps::executeUpdate);
        }
    }

    /** Release inside a claim that commits: back with the original QITS and attempt count. */
    static void restore(Connection c, TeradataNames n, Consumed row, int seconds) throws SQLException {
        String sql = TeradataStatements.restore(n);
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            JdbcTime.set(ps, 1, row.qits());
            ps.setLong(2, row.id());
            ps.setInt(3, row.attempts());
            JdbcTime.set(ps, 4, row.enqueuedAt());
            text(ps, 5, row.lastError());
            ps.setString(6, row.headers());
            ps.setBytes(7, row.payload());
            QueryTimeouts.run(ps, "restore", sql, seconds, ps::executeUpdate);
        }
    }

    /** Into the dead-letter table, bytes and raw headers intact. */
    static void deadLetter(Connection c, TeradataNames n, Consumed row, int attempts, String reason, int seconds)
            throws SQLException {
        String sql = TeradataStatements.insertDeadLetter(n);
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, row.id());
            ps.setInt(2, attempts);
            ps.setString(3, storableText(reason == null ? "" : reason));
            JdbcTime.set(ps, 4, row.enqueuedAt());
            ps.setString(5, row.headers());
            ps.setBytes(6, row.payload());
            QueryTimeouts.run(ps, "insertDeadLetter", sql, seconds, ps::executeUpdate);
        }
    }

    /** Why a row's headers cannot be decoded, or null when they can. */
    static String malformedReason(Consumed row) {
        try {
            HeaderCodec.decode(row.headers());
            return null;
        } catch (HeaderCodec.MalformedHeadersException e) {
            return "malformed headers: " + e.getMessage();
        }
    }

    /**
     * Library-written text (a nack's error, a dead-letter reason) as a UNICODE column without Unicode Pass
     * Through stores it: every refused code point replaced by {@code ?}, cut to
     * {@link TeradataStatements#MAX_REASON_CHARS} (ANSI mode rejects a longer string). See {@link TeradataText}.
     */
    static String storableText(String s) {
        return TeradataText.storableText(s, TeradataStatements.MAX_REASON_CHARS);
    }

    /** The last resort when a write failed on its text: printable ASCII only, at most 200 characters. */
    static String asciiText(String s) {
        if (s == null) {
            return null;
        }
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length() && b.length() < 200; i++) {
            char ch = s.charAt(i);
            b.append(ch >= 0x20 && ch < 0x7f ? ch : '?');
        }
        return b.toString();
    }

    private static void text(PreparedStatement ps, int i, String s) throws SQLException {
        if (s == null) {
            ps.setNull(i, Types.VARCHAR);
        } else {
            ps.setString(i, s);
        }
    }
}
