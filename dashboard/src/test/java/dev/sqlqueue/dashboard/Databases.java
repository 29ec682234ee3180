package dev.sqlqueue.dashboard;

import dev.sqlqueue.QueueConfig;
import java.util.concurrent.ThreadLocalRandom;

/** The databases of every project machine (DEVELOPERS.md), each test class on a table prefix of its own, history on. */
final class Databases {
    private Databases() {
    }

    static QueueConfig config(String db) {
        String prefix = "d18_" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36) + "_";
        QueueConfig.Builder b = QueueConfig.builder().tablePrefix(prefix).poolSize(6).history(true);
        return switch (db) {
            case "h2" -> b.url("jdbc:h2:mem:" + prefix + ";DB_CLOSE_DELAY=-1").build();
            case "postgresql" -> b.url("jdbc:postgresql://127.0.0.1:5432/test").user("postgres").password("").build();
            default -> throw new IllegalArgumentException(db);
        };
    }
}
