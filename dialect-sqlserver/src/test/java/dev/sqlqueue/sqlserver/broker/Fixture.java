package dev.sqlqueue.sqlserver.broker;

import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.spi.HeaderCodec;
import dev.sqlqueue.sqlserver.model.BrokerModel;
import dev.sqlqueue.sqlserver.model.SqlServerModel;
import java.util.Map;
import java.util.UUID;

/**
 * Shared set-up for the call-sequence tests: a backend on the {@link SqlServerModel} (driver and server
 * rules, {@link BrokerModel} for Service Broker), no sweeper thread. Messages are put on the model's
 * queues ({@link #arrive}); RECEIVE results come from there, one conversation group at a time.
 */
final class Fixture {
    static final QueueName Q = QueueName.of("jobs");
    static final String H1 = "11111111-1111-1111-1111-111111111111";
    static final String H2 = "22222222-2222-2222-2222-222222222222";
    static final String H3 = "33333333-3333-3333-3333-333333333333";

    final SqlServerModel jdbc = new SqlServerModel();
    final BrokerModel broker = BrokerModel.on(jdbc);
    final QueueConfig config;
    final BrokerOptions options;
    final BrokerStatements sql = new BrokerStatements(new BrokerNames("sqlq_"));
    ServiceBrokerBackend backend;

    Fixture(String... options) {
        QueueConfig.Builder b = QueueConfig.builder().url("jdbc:sqlserver://nowhere").backend("sqlserver-broker").poolSize(4);
        for (int i = 0; i < options.length; i += 2) {
            b.option(options[i], options[i + 1]);
        }
        this.config = b.build();
        this.options = BrokerOptions.from(config);
    }

    ServiceBrokerBackend backend() {
        if (backend == null) {
            backend = new ServiceBrokerBackend(jdbc.dataSource(), null, config, options, false);
        }
        return backend;
    }

    private dev.sqlqueue.sqlserver.model.TableSpec keys;

    /** The deduplication keys table, kept by the model (rows and locks computed). */
    dev.sqlqueue.sqlserver.model.TableSpec keys() {
        if (keys == null) {
            keys = jdbc.track(sql.names().keysTable(), "queue_name", "dedupe_key");
        }
        return keys;
    }

    /** An expiry five minutes after the model's clock (the default deduplication window). */
    java.time.LocalDateTime later() {
        return jdbc.clock().plusMinutes(5);
    }

    /** A RECEIVE row of a data message. */
    static Object[] data(String handle, long seq, long id, String payload, Map<String, String> headers) {
        return grouped(handle, seq, id, null, payload, headers);
    }

    /** A RECEIVE row of a data message of a message group (null: none). */
    static Object[] grouped(String handle, long seq, long id, String group, String payload, Map<String, String> headers) {
        byte[] body = new Envelope(id, 1_700_000_000_000L + id, HeaderCodec.encode(headers), group,
                payload.getBytes(java.nio.charset.StandardCharsets.UTF_8)).encode();
        return new Object[] {UUID.randomUUID().toString(), handle, seq, "sqlq_bk:jobs:msg", body};
    }

    /** A RECEIVE row of another message type. */
    static Object[] other(String handle, String type, byte[] body) {
        return new Object[] {UUID.randomUUID().toString(), handle, 9L, type, body};
    }

    /** The target queue's name as the statements write it. */
    String targetQueue() {
        return sql.names().qualified(sql.names().queue(Q));
    }

    String initiatorQueue() {
        return sql.names().qualified(sql.names().initiatorQueue(Q));
    }

    /**
     * Puts RECEIVE rows ({@link #data}, {@link #grouped}, {@link #other}) on the target queue, each on its
     * conversation (handle), which is its own conversation group.
     */
    Fixture arrive(Object[]... rows) {
        for (Object[] r : rows) {
            UUID h = UUID.fromString(String.valueOf(r[1]));
            broker.arrive(targetQueue(), h, String.valueOf(r[3]), (byte[]) r[4]);
        }
        return this;
    }

    /** Puts initiator-queue rows (handle, type, body) on the initiator queue. */
    Fixture arriveInitiator(Object[]... rows) {
        for (Object[] r : rows) {
            UUID h = UUID.fromString(String.valueOf(r[0]));
            broker.arrive(initiatorQueue(), h, String.valueOf(r[1]), (byte[]) r[2]);
        }
        return this;
    }
}
