package dev.sqlqueue.sqlserver.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The broker model's delivery rules (review G6): the transmission queue, LIFETIME, EndDialog, and SEND while
 * the target's conversation group is locked. Sources in {@link BrokerModel}'s class comment.
 */
class BrokerDeliveryModelTest {
    private static final String TQ = "[dbo].[tq]";
    private static final String IQ = "[dbo].[iq]";
    private static final String BEGIN = "DECLARE @h uniqueidentifier; BEGIN DIALOG CONVERSATION @h FROM SERVICE [is] TO SERVICE N'ts',"
            + " N'CURRENT DATABASE' ON CONTRACT [c] WITH LIFETIME = 60, ENCRYPTION = OFF;";
    private static final String SEND = "DECLARE @h uniqueidentifier = ?, @body varbinary(max) = ?; SEND ON CONVERSATION (@h) MESSAGE TYPE [m] (@body);";
    private static final String HELD = "SELECT conversation_handle, to_service_name, message_type_name, message_body, transmission_status"
            + " FROM sys.transmission_queue WHERE to_service_name = N'ts'";
    private final SqlServerModel model = new SqlServerModel();
    private final BrokerModel broker = BrokerModel.on(model).service("ts", TQ).service("is", IQ);
    private final UUID h = UUID.randomUUID();

    private Connection begin() throws SQLException {
        broker.nextDialogs(h.toString());
        Connection c = model.dataSource().getConnection();
        c.createStatement().execute(BEGIN);
        return c;
    }

    private static void send(Connection c, UUID h, byte[] body) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(SEND)) {
            ps.setObject(1, h.toString());
            ps.setObject(2, body);
            ps.execute();
        }
    }

    private static List<Object[]> rows(Connection c, String sql) throws SQLException {
        List<Object[]> out = new ArrayList<>();
        try (ResultSet rs = c.createStatement().executeQuery(sql)) {
            while (rs.next()) {
                Object[] r = new Object[rs.getMetaData().getColumnCount()];
                for (int i = 0; i < r.length; i++) {
                    r[i] = rs.getObject(i + 1);
                }
                out.add(r);
            }
        }
        return out;
    }

    private List<String> types(String queue) {
        return broker.messages(queue).stream().map(BrokerModel.Message::type).toList();
    }

    @Test
    void aSendToAnEnabledQueueArrivesWhenItsTransactionCommits() throws SQLException {
        Connection c = begin();
        c.setAutoCommit(false);
        c.setSavepoint("s");
        send(c, h, new byte[] {1});
        assertEquals(List.of(), types(TQ), "nothing is sent before the commit");
        c.commit();
        assertEquals(List.of("m"), types(TQ));
        assertTrue(broker.transmissionQueue().isEmpty());
    }

    @Test
    void aSendToADisabledQueueWaitsInTheTransmissionQueueUntilTheQueueIsOnAgain() throws SQLException {
        Connection c = begin();
        broker.status(TQ, false);
        send(c, h, new byte[] {1});
        send(c, h, new byte[] {2});
        assertEquals(List.of(), types(TQ));
        List<Object[]> held = rows(c, HELD);
        assertEquals(2, held.size());
        assertEquals(h.toString(), held.get(0)[0]);
        assertEquals("m", held.get(0)[2]);
        assertFalse(String.valueOf(held.get(0)[4]).isEmpty(), "transmission_status says why");
        assertEquals(List.of(2L), List.of(rows(c, "SELECT COUNT_BIG(*) FROM sys.transmission_queue WHERE to_service_name = N'ts'").get(0)[0]));
        c.createStatement().execute("ALTER QUEUE " + TQ + " WITH STATUS = ON");
        assertEquals(List.of("m", "m"), types(TQ), "delivered once the queue receives again");
        assertEquals(1, broker.messages(TQ).get(1).body()[0] - broker.messages(TQ).get(0).body()[0], "in order");
        assertTrue(rows(c, HELD).isEmpty());
    }

    @Test
    void aSendToAMissingServiceWaitsInTheTransmissionQueue() throws SQLException {
        broker.noService("gone");
        broker.nextDialogs(h.toString());
        Connection c = model.dataSource().getConnection();
        c.createStatement().execute(BEGIN.replace("N'ts'", "N'gone'"));
        send(c, h, new byte[] {1});
        assertEquals(1, broker.transmissionQueue().size());
        assertEquals("gone", broker.transmissionQueue().get(0).toService());
        broker.service("gone", TQ);
        assertEquals(List.of("m"), types(TQ));
    }

    @Test
    void transmissionQueueRowsCannotBeScripted() {
        assertThrows(ImpossibleResultException.class, () -> model.rows(HELD, new Object[] {h.toString(), "ts", "m", null, "x"}));
    }

    @Test
    void aDialogPastItsLifetimeErrorsOnBothSidesAndRefusesSends() throws SQLException {
        Connection c = begin();
        send(c, h, new byte[] {1});
        model.advance(Duration.ofSeconds(59));
        assertEquals(List.of(), types(IQ));
        model.advance(Duration.ofSeconds(1));
        assertEquals(List.of(BrokerModel.ERROR), types(IQ), "the initiator gets the Error");
        assertEquals(List.of("m", BrokerModel.ERROR), types(TQ), "so does the target, whose endpoint exists");
        assertTrue(new String(broker.messages(IQ).get(0).body(), java.nio.charset.StandardCharsets.UTF_16LE).contains("-8489"));
        SQLException e = assertThrows(SQLException.class, () -> send(c, h, new byte[] {2}));
        assertEquals(8429, e.getErrorCode());
    }

    @Test
    void messagesHeldWhenTheLifetimeRunsOutStayUntilEndConversationAndAreNeverDelivered() throws SQLException {
        Connection c = begin();
        broker.status(TQ, false);
        send(c, h, new byte[] {1});
        model.advance(Duration.ofSeconds(60));
        broker.status(TQ, true);
        assertEquals(List.of(), types(TQ), "an errored dialog delivers nothing more; the target had no endpoint, so no Error");
        assertEquals(1, broker.transmissionQueue().size());
        try (PreparedStatement ps = c.prepareStatement("DECLARE @h uniqueidentifier = ?; END CONVERSATION @h;")) {
            ps.setObject(1, h.toString());
            ps.execute();
        }
        assertTrue(broker.transmissionQueue().isEmpty(), "END CONVERSATION drops them");
    }

    @Test
    void endConversationSendsEndDialogToTheOtherSide() throws SQLException {
        Connection c = begin();
        send(c, h, new byte[] {1});
        UUID target = broker.messages(TQ).get(0).handle();
        c.setAutoCommit(false);
        c.setSavepoint("s");
        try (PreparedStatement ps = c.prepareStatement("DECLARE @h uniqueidentifier = ?; END CONVERSATION @h;")) {
            ps.setObject(1, target.toString());
            ps.execute();
        }
        assertEquals(List.of(), types(IQ), "not before the commit");
        c.commit();
        assertEquals(List.of("http://schemas.microsoft.com/SQL/ServiceBroker/EndDialog"), types(IQ));
        assertEquals(h, broker.messages(IQ).get(0).handle());
        SQLException e = assertThrows(SQLException.class, () -> {
            try (PreparedStatement ps = c.prepareStatement(SEND)) {
                ps.setObject(1, target.toString());
                ps.setObject(2, new byte[] {2});
                ps.execute();
            }
        });
        assertEquals(8429, e.getErrorCode(), "the ended side cannot send");
    }

    @Test
    void aSendIsNotHeldBackByAReceiverHoldingTheTargetsGroup() throws SQLException {
        Connection c = begin();
        send(c, h, new byte[] {1});
        Connection consumer = model.dataSource().getConnection();
        consumer.setAutoCommit(false);
        consumer.setSavepoint("s");
        rows(consumer, "RECEIVE TOP (1) conversation_handle FROM " + TQ);
        UUID target = broker.messages(TQ).isEmpty() ? null : broker.messages(TQ).get(0).handle();
        assertEquals(null, target, "the consumer took the message");
        send(c, h, new byte[] {2});
        assertEquals(List.of("m"), types(TQ), "on the target queue while the consumer holds the group");
        assertTrue(broker.transmissionQueue().isEmpty());
        assertEquals(List.of(), rows(model.dataSource().getConnection(), "RECEIVE TOP (1) conversation_handle FROM " + TQ),
                "but no other RECEIVE gets it while the group is locked");
        consumer.rollback();
    }

    @Test
    void aScriptedCatalogRowMustAgreeWithTheCountsTheModelKeeps() throws SQLException {
        Connection c = begin();
        broker.status(TQ, false);
        send(c, h, new byte[] {1});
        broker.arrive(TQ, UUID.randomUUID(), "m", null);
        String stats = "SELECT (SELECT COUNT_BIG(*) FROM dbo.other WHERE x = ?) AS other, (SELECT COUNT_BIG(*) FROM " + TQ
                + " WITH (NOLOCK) WHERE message_type_name = N'm') + (SELECT COUNT_BIG(*) FROM sys.transmission_queue WHERE"
                + " to_service_name = N'ts') AS ready";
        model.rows(stats, new Object[] {5L, 2L});
        assertEquals(2L, rows(c, stats).get(0)[1], "1 on the queue + 1 waiting; the other column stays scripted");
        SqlServerModel other = new SqlServerModel();
        BrokerModel.on(other).service("ts", TQ).status(TQ, true).arrive(TQ, UUID.randomUUID(), "m", null);
        other.rows(stats, new Object[] {5L, 2L});
        assertThrows(ImpossibleResultException.class, () -> rows(other.dataSource().getConnection(), stats));
    }
}
