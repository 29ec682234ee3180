package dev.sqlqueue.sqlserver.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.sqlserver.model.SqlServerModel;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Review finding 9 on the driver and server model: a pooled connection whose isolation level was changed by raw SQL
 * ({@code SET TRANSACTION ISOLATION LEVEL SNAPSHOT} in a plain batch) still claims, because the claim sets READ
 * COMMITTED inside its own batch. {@code Sessions} cannot see that change: mssql-jdbc's
 * {@code getTransactionIsolation} returns the level it last set, not the server's. Without the claim's own line,
 * READPAST fails with error 650 ("Table hints (Transact-SQL)"); the model raises it (re-review G2).
 */
class ClaimIsolationModelTest {
    private static final QueueName Q = QueueName.of("jobs");

    @ParameterizedTest
    @EnumSource(ClaimMode.class)
    void aConnectionSetToSnapshotByRawSqlStillClaims(ClaimMode mode) throws Exception {
        SqlServerModel model = new SqlServerModel();
        Connection shared = model.dataSource().getConnection();
        try (Statement st = shared.createStatement()) {
            st.execute("SET TRANSACTION ISOLATION LEVEL SNAPSHOT"); // a plain batch: it stays on the session
        }
        assertEquals(Connection.TRANSACTION_READ_COMMITTED, shared.getTransactionIsolation(), "the driver does not know");
        ModelFixture f = new ModelFixture(model, pooled(shared));
        f.claims(7);
        List<Delivery> got = f.backend.consume(Q, ConsumeRequest.of(1).withMode(mode));
        assertEquals(1, got.size(), model.log().toString());
        assertEquals(SqlServerModel.TRANSACTION_SNAPSHOT, model.session(1).isolation(),
                "the claim's own SET was scoped to its RPC; the session keeps what the raw SQL set");
    }

    /** One connection handed out again and again, as a pool does; close() gives it back (it stays open). */
    private static DataSource pooled(Connection shared) {
        Connection handle = (Connection) Proxy.newProxyInstance(ClaimIsolationModelTest.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (p, m, a) -> {
                    if (m.getName().equals("close")) {
                        return null;
                    }
                    try {
                        return m.invoke(shared, a);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        return (DataSource) Proxy.newProxyInstance(ClaimIsolationModelTest.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (p, m, a) -> {
                    if (m.getName().equals("getConnection")) {
                        return handle;
                    }
                    throw new UnsupportedOperationException(m.getName());
                });
    }
}
