package dev.sqlqueue.teradata;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.teradata.model.TeradataModel;
import java.util.List;
import java.util.Map;

/**
 * The backend opened on a {@link TeradataModel} whose default database is {@code qdb}, with queue
 * {@code jobs} created. The model, not a script, decides every answer.
 */
final class ModelFixture {
    static final QueueName JOBS = QueueName.of("jobs");
    static final TeradataNames N = TeradataNames.of("sqlq_", "qdb", JOBS);

    final TeradataModel model;
    final SqlQueue queue;

    ModelFixture(String... options) {
        this(new TeradataModel("qdb"), options);
    }

    ModelFixture(TeradataModel model, String... options) {
        this.model = model;
        this.queue = open(model, options);
        queue.createQueue(JOBS);
    }

    /** Another client (another process) on the same model. */
    static SqlQueue open(TeradataModel model, String... options) {
        QueueConfig.Builder b = QueueConfig.builder().backend("teradata").dataSource(model.dataSource());
        for (int i = 0; i < options.length; i += 2) {
            b.option(options[i], options[i + 1]);
        }
        return SqlQueue.open(b.build());
    }

    static ConsumeRequest claim(int n) {
        return ConsumeRequest.of(n).withMode(ClaimMode.TRANSACTIONAL);
    }

    List<Map<String, Object>> queueRows() {
        return model.committedRows(N.queueTableName());
    }

    List<Map<String, Object>> deadRows() {
        return model.committedRows(N.deadLetterTableName());
    }
}
