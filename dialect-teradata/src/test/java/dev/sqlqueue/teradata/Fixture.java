package dev.sqlqueue.teradata;

import static dev.sqlqueue.teradata.RecordingJdbc.labelled;
import static dev.sqlqueue.teradata.RecordingJdbc.row;
import static dev.sqlqueue.teradata.RecordingJdbc.rows;

import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.spi.HeaderCodec;
import java.sql.Timestamp;
import java.util.List;
import java.util.Map;

/** Opens the backend on a {@link RecordingJdbc} whose first answers describe an ANSI, UTF8 session in database qdb. */
final class Fixture {
    static final QueueName JOBS = QueueName.of("jobs");
    static final TeradataNames N = TeradataNames.of("sqlq_", "qdb", JOBS);
    static final Timestamp T0 = Timestamp.valueOf("2026-01-02 03:04:05.123456");

    final RecordingJdbc jdbc = new RecordingJdbc();
    final SqlQueue queue;

    Fixture(String... options) {
        jdbc.on(TeradataStatements.helpSession(),
                labelled(List.of("User Name", "Transaction Semantics", "Character Set"), row("u", "ANSI", "UTF8")));
        jdbc.on(TeradataStatements.currentDatabase(), rows(row("qdb ")));
        jdbc.on(TeradataStatements.serverVersion(), rows(row("17.20.03.01")));
        QueueConfig.Builder b = QueueConfig.builder().backend("teradata").dataSource(jdbc.dataSource());
        for (int i = 0; i < options.length; i += 2) {
            b.option(options[i], options[i + 1]);
        }
        queue = SqlQueue.open(b.build());
        jdbc.clear();
    }

    /** A consumed row: qits, seq, msg_id, attempts, enqueued_at, last_error, headers, payload. */
    static Object[] consumed(long seq, Long msgId, int attempts, String headers, byte[] payload) {
        return row(T0, seq, msgId, attempts, T0, null, headers, payload);
    }

    static Object[] consumed(long seq, Map<String, String> headers, String text) {
        return consumed(seq, null, 0, HeaderCodec.encode(headers), text.getBytes());
    }

    /** Scripts a queue with these rows: a peek answer and a consume answer per row, then an empty peek. */
    void queueHolds(Object[]... consumedRows) {
        for (Object[] r : consumedRows) {
            jdbc.on(TeradataStatements.peek(N), rows(row(T0)));
            jdbc.on(TeradataStatements.consume(N), rows(r));
        }
    }

    static String peek() {
        return "Q " + TeradataStatements.peek(N);
    }

    static String consume() {
        return "Q " + TeradataStatements.consume(N);
    }
}
