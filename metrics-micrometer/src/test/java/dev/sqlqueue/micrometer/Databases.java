package dev.sqlqueue.micrometer;

import dev.sqlqueue.QueueConfig;
import java.util.concurrent.ThreadLocalRandom;

/** The databases of every project machine (DEVELOPERS.md), each test on a table prefix of its own. */
final class Databases {
    private Databases() {
    }

    static QueueConfig config(String db) {
        String prefix = "m17_" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36) + "_";
        QueueConfig.Builder b = QueueConfig.builder().tablePrefix(prefix).poolSize(4);
        return switch (db) {
            case "h2" -> b.url("jdbc:h2:mem:" + prefix + ";DB_CLOSE_DELAY=-1").build();
            case "postgresql" -> b.url("jdbc:postgresql://127.0.0.1:5432/test").user("postgres").password("").build();
            case "mariadb" -> b.url("jdbc:mariadb://127.0.0.1:3306/test").user("root").password("").build();
            default -> throw new IllegalArgumentException(db);
        };
    }
}
