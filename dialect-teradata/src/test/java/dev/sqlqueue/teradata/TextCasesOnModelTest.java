package dev.sqlqueue.teradata;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.conformance.FaultHooks;
import dev.sqlqueue.conformance.TextCases;
import dev.sqlqueue.teradata.model.TeradataModel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/**
 * Conformance case C23 (text outside the BMP) on the Teradata backend over the {@link TeradataModel}:
 * the header is refused under {@code headers.charset}, the error text and the reason are stored with
 * {@code ?} for U+1D11E. This runs the shared case on the model of the documented rules, not on a
 * Teradata system ({@code TeradataConformanceTest} does that when one is configured).
 */
class TextCasesOnModelTest implements TextCases {
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
        return new FaultHooks() { };
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
