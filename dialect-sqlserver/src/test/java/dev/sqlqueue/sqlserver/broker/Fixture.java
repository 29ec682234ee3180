package dev.sqlqueue.sqlserver.broker;

import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.spi.HeaderCodec;
import java.util.Map;
import java.util.UUID;

/** Shared set-up for the call-sequence tests: a backend on a {@link RecordingJdbc} double, no sweeper thread. */
final class Fixture {
    static final QueueName Q = QueueName.of("jobs");
    static final String H1 = "11111111-1111-1111-1111-111111111111";
    static final String H2 = "22222222-2222-2222-2222-222222222222";
    static final String H3 = "33333333-3333-3333-3333-333333333333";

    final RecordingJdbc jdbc = new RecordingJdbc();
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
}
