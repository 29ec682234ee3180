package dev.sqlqueue.teradata;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.conformance.FaultHooks;
import dev.sqlqueue.conformance.DeduplicationCases;
import dev.sqlqueue.teradata.model.TeradataModel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/**
 * Conformance cases C24 to C26 (deduplication keys: under concurrency, in the caller's transaction, the
 * window) on the Teradata backend over the {@link TeradataModel}, which interprets the keys-table
 * statements. This runs the shared cases on the model of the documented rules and the pinned driver, not
 * on a Teradata system ({@code TeradataConformanceTest} does that when one is configured).
 */
class DeduplicationCasesOnModelTest implements DeduplicationCases {
    private final TeradataModel model = new TeradataModel("qdb");
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
            public java.sql.Connection openConnection(QueueConfig c) throws java.sql.SQLException {
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
