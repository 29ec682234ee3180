package dev.sqlqueue.sqlserver.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.microsoft.sqlserver.jdbc.ISQLServerConnection;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Review N8: mssql-jdbc before 11.1 has no {@code prepareMethod} property (mssql-jdbc CHANGELOG, 11.1.0-preview:
 * "Added new connection string property prepareMethod"), so its {@link ISQLServerConnection} lacks
 * {@code getPrepareMethod}/{@code setPrepareMethod} and a call compiled against 13.2.1 throws
 * {@link NoSuchMethodError}. Such a driver sends every PreparedStatement as an RPC; the backend must work on it and
 * give its connection back. The double here is the {@link RecordingJdbc} connection whose unwrapped driver
 * interface throws {@link NoSuchMethodError} from {@code getPrepareMethod}, as that older interface would.
 */
class OldDriverTest {
    @Test
    void aDriverWithoutPrepareMethodIsLeftAloneAndItsConnectionGoesBack() {
        SqlServerStatements sql = new SqlServerStatements("sqlq_", "dbo", ClaimOrder.FIFO);
        RecordingJdbc jdbc = new RecordingJdbc(sql);
        DataSource recording = jdbc.dataSource();
        DataSource wrapped = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DataSource.class},
                (p, m, a) -> {
                    if (!m.getName().equals("getConnection")) {
                        throw new UnsupportedOperationException(m.getName());
                    }
                    return olderDriver(recording.getConnection());
                });
        SqlServerQueueBackend backend = new SqlServerQueueBackend(sql, new Sessions(wrapped, 0, r -> { }), false, () -> { },
                null, ClaimOrder.FIFO);
        jdbc.rows(RecordingJdbc.row("id", 5L));
        assertEquals(List.of(5L), backend.enqueueAll(QueueName.of("jobs"), List.of(Message.ofText("a"))));
        assertTrue(jdbc.connections.stream().allMatch(c -> c.closed), "the connection went back");
        assertTrue(jdbc.sequence().contains("commit"), jdbc.sequence().toString());
    }

    /** A connection of mssql-jdbc before 11.1: it is the driver's, but its interface has no prepareMethod. */
    private static Connection olderDriver(Connection c) {
        ISQLServerConnection driver = (ISQLServerConnection) Proxy.newProxyInstance(OldDriverTest.class.getClassLoader(),
                new Class<?>[] {ISQLServerConnection.class}, (p, m, a) -> {
                    throw new NoSuchMethodError("'java.lang.String com.microsoft.sqlserver.jdbc.ISQLServerConnection."
                            + m.getName() + "()'");
                });
        return (Connection) Proxy.newProxyInstance(OldDriverTest.class.getClassLoader(), new Class<?>[] {Connection.class},
                (p, m, a) -> switch (m.getName()) {
                    case "isWrapperFor" -> a[0] == ISQLServerConnection.class;
                    case "unwrap" -> driver;
                    default -> {
                        try {
                            yield m.invoke(c, a);
                        } catch (java.lang.reflect.InvocationTargetException e) {
                            throw e.getCause();
                        }
                    }
                });
    }
}
