package dev.sqlqueue.teradata;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.conformance.FaultHooks;
import dev.sqlqueue.conformance.DeliveryCases;
import dev.sqlqueue.teradata.model.TeradataModel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/**
 * Conformance cases C01, C07, C08, C09, C11 and C14 on the Teradata backend over the {@link TeradataModel}
 * (the cases of a capability the backend lacks are skipped). C01 used to put U+1D11E in a header, which a
 * Teradata session without Unicode Pass Through refuses, so it failed on every Teradata system by design;
 * text outside the BMP is C23's ({@code TextCasesOnModelTest}). Not a Teradata system:
 * {@code TeradataConformanceTest} runs these when one is configured.
 */
class DeliveryCasesOnModelTest implements DeliveryCases {
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
