package dev.sqlqueue.sqlserver.broker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sqlqueue.spi.HeaderCodec;
import java.nio.ByteBuffer;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EnvelopeTest {
    @Test
    void serverPrefixPlusRestDecodesToTheMessage() throws Exception {
        byte[] payload = new byte[256];
        for (int i = 0; i < 256; i++) {
            payload[i] = (byte) i;
        }
        Map<String, String> headers = Map.of("grüße", "日本語 ✓", "k=v", "line\nbreak");
        byte[] rest = Envelope.rest(headers, payload);
        // what BrokerStatements.send prepends on the server: 0x01, id (8 bytes), enqueue ms (8 bytes)
        byte[] body = ByteBuffer.allocate(17 + rest.length).put((byte) 1).putLong(42L).putLong(1_700_000_000_123L).put(rest).array();
        Envelope e = Envelope.decode(body);
        assertEquals(42L, e.messageId());
        assertEquals(1_700_000_000_123L, e.enqueuedMillis());
        assertEquals(headers, HeaderCodec.decode(e.rawHeaders()));
        assertArrayEquals(payload, e.payload());
        assertArrayEquals(body, e.encode());
    }

    @Test
    void emptyPayloadAndHeaders() throws Exception {
        Envelope e = Envelope.decode(new Envelope(7, 8, "", new byte[0]).encode());
        assertEquals(0, e.payload().length);
        assertEquals("", e.rawHeaders());
    }

    @Test
    void brokenBodiesAreNamed() {
        assertThrows(Envelope.UndecodableException.class, () -> Envelope.decode(null));
        assertThrows(Envelope.UndecodableException.class, () -> Envelope.decode(new byte[20]));
        byte[] wrongVersion = new Envelope(1, 1, "", new byte[0]).encode();
        wrongVersion[0] = 3;
        Envelope.UndecodableException x = assertThrows(Envelope.UndecodableException.class, () -> Envelope.decode(wrongVersion));
        assertEquals("unknown envelope version 3", x.getMessage());
        byte[] longHeader = new Envelope(1, 1, "", new byte[0]).encode();
        longHeader[20] = 50;
        assertThrows(Envelope.UndecodableException.class, () -> Envelope.decode(longHeader));
        byte[] noGroup = new Envelope(1, 1, "", new byte[0]).encode();
        noGroup[0] = Envelope.VERSION_GROUPED;
        x = assertThrows(Envelope.UndecodableException.class, () -> Envelope.decode(noGroup));
        assertEquals("version 2 body ends before its group length", x.getMessage());
        byte[] longGroup = new Envelope(1, 1, "", "g", new byte[0]).encode();
        longGroup[Envelope.FIXED + 1] = 9;
        x = assertThrows(Envelope.UndecodableException.class, () -> Envelope.decode(longGroup));
        assertEquals("group length 9 is empty or runs past the end of the body", x.getMessage());
    }

    @Test
    void groupedBodyRoundTripsWithHeaderLengthStillAtBytes18To21() throws Exception {
        byte[] payload = {0, 1, 2, (byte) 255};
        Envelope e = new Envelope(42L, 1_700_000_000_123L, "k=v", "order-\u00e9", payload);
        byte[] body = e.encode();
        assertEquals(Envelope.VERSION_GROUPED, body[0]);
        assertEquals(3, ByteBuffer.wrap(body, 17, 4).getInt(), "header length where the activation example reads it");
        Envelope back = Envelope.decode(body);
        assertEquals(42L, back.messageId());
        assertEquals(1_700_000_000_123L, back.enqueuedMillis());
        assertEquals("k=v", back.rawHeaders());
        assertEquals("order-\u00e9", back.group());
        assertArrayEquals(payload, back.payload());
        byte[] rest = Envelope.rest(java.util.Map.of("k", "v"), "order-\u00e9", payload);
        byte[] fromServer = ByteBuffer.allocate(17 + rest.length).put(Envelope.VERSION_GROUPED).putLong(42L)
                .putLong(1_700_000_000_123L).put(rest).array();
        assertArrayEquals(body, fromServer, "server prefix + adapter rest = the whole envelope");
        assertEquals(42L, Envelope.idOrZero(body));
    }

    @Test
    void idOfBrokenBodyWhenReadable() {
        assertEquals(99L, Envelope.idOrZero(ByteBuffer.allocate(9).put((byte) 1).putLong(99L).array()));
        assertEquals(0L, Envelope.idOrZero(new byte[] {5, 5}));
        assertEquals(0L, Envelope.idOrZero(null));
    }
}
