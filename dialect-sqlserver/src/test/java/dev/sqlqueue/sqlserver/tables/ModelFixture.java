package dev.sqlqueue.sqlserver.tables;

import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import dev.sqlqueue.sqlserver.model.SqlServerModel;
import java.nio.charset.StandardCharsets;
import java.util.List;
import javax.sql.DataSource;

/**
 * A backend on the shared {@link SqlServerModel} of mssql-jdbc and SQL Server (not on the
 * {@link RecordingJdbc} double): the model decides what setAutoCommit, commit, rollback, close and every
 * batch do to the session. Only the rows a claim or enqueue returns are scripted. Not thread-safe.
 */
final class ModelFixture {
    final SqlServerModel model;
    final SqlServerStatements sql = new SqlServerStatements("sqlq_", "dbo", ClaimOrder.FIFO);
    final SqlServerQueueBackend backend;

    ModelFixture(SqlServerModel model, DataSource ds) {
        this.model = model;
        Sessions sessions = new Sessions(ds, 0, retry -> { });
        backend = new SqlServerQueueBackend(sql, sessions, false, () -> { }, null, ClaimOrder.FIFO);
    }

    ModelFixture(SqlServerModel model) {
        this(model, model.dataSource());
    }

    /** The enqueue statements return these ids, in order (the last repeats). */
    ModelFixture enqueueIds(long... ids) {
        for (long id : ids) {
            model.labelled(sql.get("enqueue"), List.of("id"), new Object[] {id});
            model.labelled(sql.get("enqueueJoined"), List.of("id"), new Object[] {id});
        }
        return this;
    }

    /** The next claim returns these message ids (token 1, attempt 1, empty headers). */
    ModelFixture claims(long... ids) {
        Object[][] rows = new Object[ids.length][];
        for (int i = 0; i < ids.length; i++) {
            rows[i] = new Object[] {ids[i], 1L, 1, 0, Fixture.T0, Fixture.T0, "p".getBytes(StandardCharsets.UTF_8), ""};
        }
        model.labelled(sql.get("claim"), List.of("id", "lease_token", "attempts", "priority", "enqueued_at", "prior_visible_at",
                "payload", "headers"), rows);
        return this;
    }
}
