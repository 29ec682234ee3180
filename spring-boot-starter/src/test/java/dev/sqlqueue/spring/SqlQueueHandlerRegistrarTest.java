package dev.sqlqueue.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sqlqueue.Delivery;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.Receipt;
import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.runtime.Outcome;
import dev.sqlqueue.runtime.WorkerOptions;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How annotated methods become workers, and the clear errors for signatures that cannot. */
class SqlQueueHandlerRegistrarTest {
    static class Good {
        String seen;

        @SqlQueueHandler(queue = "mail", threads = "3", batchSize = "7")
        public Outcome send(String text) {
            seen = text;
            return text.equals("bad") ? Outcome.deadLetter("bad address") : Outcome.ack();
        }
    }

    static class WrongParameter {
        @SqlQueueHandler(queue = "mail")
        public void send(Integer n) {
        }
    }

    static class WrongReturn {
        @SqlQueueHandler(queue = "mail")
        public String send(Delivery d) {
            return "x";
        }
    }

    static class Throws {
        @SqlQueueHandler(queue = "mail")
        public void send(byte[] payload) throws java.io.IOException {
            throw new java.io.IOException("smtp down");
        }
    }

    private static Delivery delivery(String text) {
        return new Delivery(new Receipt(QueueName.of("mail"), 1, 1, ClaimMode.LEASE), text.getBytes(StandardCharsets.UTF_8),
                Map.of(), 1, 0, Instant.EPOCH, null);
    }

    @Test
    void annotatedMethodBecomesAWorkerWithItsOptions() throws Exception {
        SqlQueueHandlerRegistrar r = new SqlQueueHandlerRegistrar();
        Good bean = new Good();
        r.postProcessAfterInitialization(bean, "good");
        assertThat(r.workers()).hasSize(1);
        QueueWorker w = r.workers().get(0);
        assertThat(w.queue()).isEqualTo(QueueName.of("mail"));
        WorkerOptions o = w.options().apply(WorkerOptions.defaults());
        assertThat(o.threads()).isEqualTo(3);
        assertThat(o.batchSize()).isEqualTo(7);
        assertThat(w.handler().handle(delivery("hello"))).isEqualTo(Outcome.ack());
        assertThat(bean.seen).isEqualTo("hello");
        assertThat(w.handler().handle(delivery("bad"))).isEqualTo(Outcome.deadLetter("bad address"));
    }

    @Test
    void theHandlersOwnExceptionReachesThePool() {
        SqlQueueHandlerRegistrar r = new SqlQueueHandlerRegistrar();
        r.postProcessAfterInitialization(new Throws(), "throws");
        assertThatThrownBy(() -> r.workers().get(0).handler().handle(delivery("x")))
                .isInstanceOf(java.io.IOException.class).hasMessage("smtp down");
    }

    @Test
    void signaturesThatCannotBeHandlersAreRefusedByName() {
        SqlQueueHandlerRegistrar r = new SqlQueueHandlerRegistrar();
        assertThatThrownBy(() -> r.postProcessAfterInitialization(new WrongParameter(), "wrongParameter"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("wrongParameter.send").hasMessageContaining("must take Delivery, String or byte[]");
        assertThatThrownBy(() -> r.postProcessAfterInitialization(new WrongReturn(), "wrongReturn"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("wrongReturn.send").hasMessageContaining("must return void or Outcome");
        assertThat(r.workers()).isEmpty();
    }
}
