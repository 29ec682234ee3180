package dev.sqlqueue.spring;

import dev.sqlqueue.DeadLetter;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.QueueStats;
import dev.sqlqueue.SqlQueue;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code sqlqueue} actuator endpoint ({@code /actuator/sqlqueue} when exposed): the stats of every
 * queue; {@code /actuator/sqlqueue/{queue}} adds up to {@code sqlqueue.endpoint.dead-letter-limit} of its
 * dead letters (oldest first, payload shown as text when it is UTF-8, at most 200 characters). Read-only.
 */
@Endpoint(id = "sqlqueue")
public class SqlQueueEndpoint {
    private static final int PREVIEW = 200;
    private final SqlQueue queue;
    private final int deadLetterLimit;

    /**
     * An endpoint on one queue client.
     *
     * @param queue the queue client whose queues are shown
     * @param deadLetterLimit most dead letters shown per queue, 1..100,000
     */
    public SqlQueueEndpoint(SqlQueue queue, int deadLetterLimit) {
        this.queue = queue;
        this.deadLetterLimit = deadLetterLimit;
    }

    /**
     * {@code GET /actuator/sqlqueue}: the backend and every queue's stats.
     *
     * @return {@code backend} (the backend's name) and {@code queues} (each queue's stats by name); a queue dropped
     *     while being read is left out
     */
    @ReadOperation
    public Map<String, Object> queues() {
        Map<String, Object> all = new LinkedHashMap<>();
        for (QueueName n : queue.queues()) {
            try {
                all.put(n.value(), stats(queue.stats(n)));
            } catch (dev.sqlqueue.InvalidInputException e) {
                if (!"queue.exists".equals(e.rule())) {
                    throw e;
                }
                // dropped since it was listed
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("backend", queue.capabilities().backend());
        out.put("queues", all);
        return out;
    }

    /**
     * {@code GET /actuator/sqlqueue/{queue}}: one queue's stats and oldest dead letters.
     *
     * @param name the queue's name
     * @return {@code queue}, {@code stats} and {@code deadLetters} (up to the limit, oldest first)
     * @throws dev.sqlqueue.InvalidInputException if {@code name} is not a valid queue name or the queue does not exist
     */
    @ReadOperation
    public Map<String, Object> queue(@Selector String name) {
        QueueName q = QueueName.of(name);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("queue", q.value());
        out.put("stats", stats(queue.stats(q)));
        out.put("deadLetters", queue.deadLetters(q, deadLetterLimit).stream().map(SqlQueueEndpoint::deadLetter).toList());
        return out;
    }

    static Map<String, Object> stats(QueueStats s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ready", s.ready());
        m.put("inFlight", s.inFlight());
        m.put("delayed", s.delayed());
        m.put("deadLetters", s.dead());
        m.put("oldestReadyAgeMillis", s.oldestReadyAgeMillis());
        m.put("processed", s.processed());
        return m;
    }

    static Map<String, Object> deadLetter(DeadLetter d) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("messageId", d.messageId());
        m.put("attempts", d.attempts());
        m.put("reason", d.reason());
        m.put("enqueuedAt", String.valueOf(d.enqueuedAt()));
        m.put("deadAt", String.valueOf(d.deadAt()));
        m.put("group", d.group());
        m.put("headers", d.headers());
        m.put("payloadBytes", d.payload().length);
        m.put("payloadText", text(d.payload()));
        return m;
    }

    private static String text(byte[] payload) {
        try {
            String s = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(payload)).toString();
            return s.length() > PREVIEW ? s.substring(0, PREVIEW) + "..." : s;
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
