package dev.sqlqueue.dashboard;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * A known workload. Queue {@code orders}: 5 acked, 3 dead-lettered (a payload and a header that are
 * HTML/script, a binary payload, a 2,000-character text), 2 in flight under a 10-minute lease, 7 ready,
 * 3 delayed by an hour. Queue {@code payments}: one dead letter. Queue {@code trash}: two dead letters.
 */
final class Workload {
    static final QueueName ORDERS = QueueName.of("orders");
    static final QueueName PAYMENTS = QueueName.of("payments");
    static final QueueName TRASH = QueueName.of("trash");
    static final String XSS_PAYLOAD = "<script>window.__xss=1</script><img src=x onerror=\"window.__xss=2\">";
    static final String XSS_HEADER = "<b onmouseover=\"window.__xss=3\">hi</b>";
    static final String XSS_REASON = "failed: <img src=y onerror=\"window.__xss=4\">";
    static final byte[] BINARY = {0, 1, 2, (byte) 0xff, (byte) 0xfe, 0x41};

    long firstAckedId;
    long xssId;
    long binaryId;
    long longTextId;
    long paymentId;

    static Workload load(SqlQueue client) {
        Workload w = new Workload();
        for (QueueName q : List.of(ORDERS, PAYMENTS, TRASH)) {
            client.createQueue(q);
        }
        for (int i = 0; i < 5; i++) {
            client.enqueue(ORDERS, Message.ofText("order-" + i));
        }
        List<Delivery> acked = consume(client, ORDERS, 5);
        w.firstAckedId = acked.get(0).id();
        for (Delivery d : acked) {
            client.ack(d.receipt(), "shipped");
        }

        w.xssId = client.enqueue(ORDERS, Message.builder(XSS_PAYLOAD.getBytes(StandardCharsets.UTF_8))
                .header("note", XSS_HEADER).header("kind", "order").build());
        w.binaryId = client.enqueue(ORDERS, Message.of(BINARY));
        w.longTextId = client.enqueue(ORDERS, Message.ofText("x".repeat(2000)));
        for (Delivery d : consume(client, ORDERS, 3)) {
            client.deadLetter(d.receipt(), d.id() == w.xssId ? XSS_REASON : "handler failed " + d.id());
        }

        client.enqueue(ORDERS, Message.ofText("in-flight-1"));
        client.enqueue(ORDERS, Message.ofText("in-flight-2"));
        consume(client, ORDERS, 2);   // leased for 10 minutes, never settled

        for (int i = 0; i < 7; i++) {
            client.enqueue(ORDERS, Message.ofText("ready-" + i));
        }
        for (int i = 0; i < 3; i++) {
            client.enqueue(ORDERS, Message.builder("later-".concat(String.valueOf(i)).getBytes(StandardCharsets.UTF_8))
                    .delay(Duration.ofHours(1)).build());
        }

        w.paymentId = client.enqueue(PAYMENTS, Message.ofText("pay-42"));
        for (Delivery d : consume(client, PAYMENTS, 1)) {
            client.deadLetter(d.receipt(), "card declined");
        }
        client.enqueue(TRASH, Message.ofText("junk-1"));
        client.enqueue(TRASH, Message.ofText("junk-2"));
        for (Delivery d : consume(client, TRASH, 2)) {
            client.deadLetter(d.receipt(), "junk");
        }
        return w;
    }

    private static List<Delivery> consume(SqlQueue client, QueueName q, int n) {
        List<Delivery> got = client.consume(q, ConsumeRequest.of(n).withLease(Duration.ofMinutes(10)));
        assertEquals(n, got.size(), "the workload's claim on " + q);
        return got;
    }
}
