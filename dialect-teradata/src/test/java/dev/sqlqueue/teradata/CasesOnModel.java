package dev.sqlqueue.teradata;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.conformance.FaultHooks;
import dev.sqlqueue.conformance.SuiteContext;
import dev.sqlqueue.teradata.model.TeradataModel;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/**
 * What a shared conformance case needs, over a fresh {@link TeradataModel} per test: the backend on the
 * model in the transactional claim mode, further clients on it, and plain connections to it for the
 * caller's-transaction cases. Subclasses pick the cases by implementing their interface. This runs shared
 * cases on the model, not on a Teradata system ({@code TeradataConformanceTest} does that when one is
 * configured).
 */
abstract class CasesOnModel implements SuiteContext {
    final TeradataModel model = new TeradataModel("qdb");
    private final QueueConfig config = QueueConfig.builder().backend("teradata").dataSource(model.dataSource()).build();
    private final SqlQueue queue = SqlQueue.open(config);
    private final List<SqlQueue> others = new ArrayList<>();

    @AfterEach
    void close() {
        others.forEach(SqlQueue::close);
        queue.close();
    }

    @Override
    public SqlQueue queue() {
        return queue;
    }

    @Override
    public QueueConfig config() {
        return config;
    }

    @Override
    public FaultHooks hooks() {
        return new FaultHooks() {
            @Override
            public Connection openConnection(QueueConfig c) throws SQLException {
                return model.dataSource().getConnection();
            }
        };
    }

    @Override
    public ClaimMode claimMode() {
        return ClaimMode.TRANSACTIONAL;
    }

    @Override
    public SqlQueue openAnother() {
        return openAnother(config);
    }

    @Override
    public SqlQueue openAnother(QueueConfig c) {
        SqlQueue q = SqlQueue.open(c);
        others.add(q);
        return q;
    }
}
