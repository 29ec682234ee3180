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
        wrongVersion[0] = 2;
        Envelope.UndecodableException x = assertThrows(Envelope.UndecodableException.class, () -> Envelope.decode(wrongVersion));
        assertEquals("unknown envelope version 2", x.getMessage());
        byte[] longHeader = new Envelope(1, 1, "", new byte[0]).encode();
        longHeader[20] = 50;
        assertThrows(Envelope.UndecodableException.class, () -> Envelope.decode(longHeader));
    }

    @Test
    void idOfBrokenBodyWhenReadable() {
        assertEquals(99L, Envelope.idOrZero(ByteBuffer.allocate(9).put((byte) 1).putLong(99L).array()));
        assertEquals(0L, Envelope.idOrZero(new byte[] {5, 5}));
        assertEquals(0L, Envelope.idOrZero(null));
    }
}
