package dev.sqlqueue.dashboard;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * A short preview of a payload: its text when the bytes are valid UTF-8 without control characters
 * (other than tab, CR and LF) and without Unicode format characters (category Cf: the bidirectional
 * embeddings, overrides and isolates U+202A..U+202E and U+2066..U+2069, the marks U+200E, U+200F and
 * U+061C, zero-width characters, U+FEFF, ...), else the hex of its first bytes. A format character
 * would change how the text around it is shown (an override makes {@code exe.png} look like
 * {@code gnp.exe}), so the text would misrepresent the bytes. The page shows it with
 * {@code textContent}, never as markup.
 *
 * @param kind {@code text} or {@code hex}
 * @param preview at most {@code maxChars} characters of text, or the hex of at most {@code maxChars / 3} bytes
 * @param truncated whether the payload is longer than the preview
 * @param bytes the payload's size in bytes
 */
record PayloadPreview(String kind, String preview, boolean truncated, long bytes) {
    /**
     * The preview of a payload of which only its first bytes were read ({@code head}, the whole payload being
     * {@code totalBytes} long): a UTF-8 sequence cut at the end of {@code head} is left out.
     */
    static PayloadPreview of(byte[] head, long totalBytes, int maxChars) {
        if (head.length == totalBytes) {
            return of(head, maxChars);
        }
        int end = head.length;
        for (int back = 1; back <= 3 && end - back >= 0; back++) {
            int b = head[end - back] & 0xff;
            if ((b & 0xc0) != 0x80) { // the lead byte of the last sequence
                int need = b < 0x80 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
                if (need > back) {
                    end -= back;
                }
                break;
            }
        }
        PayloadPreview p = of(java.util.Arrays.copyOf(head, end), maxChars);
        return new PayloadPreview(p.kind(), p.preview(), true, totalBytes);
    }

    /** The preview of {@code payload} in at most {@code maxChars} (16..100,000) characters. */
    static PayloadPreview of(byte[] payload, int maxChars) {
        String text = utf8Text(payload);
        if (text != null) {
            if (text.length() <= maxChars) {
                return new PayloadPreview("text", text, false, payload.length);
            }
            int end = maxChars;
            if (Character.isHighSurrogate(text.charAt(end - 1))) {
                end--;
            }
            return new PayloadPreview("text", text.substring(0, end), true, payload.length);
        }
        int n = Math.min(payload.length, maxChars / 3);
        StringBuilder hex = new StringBuilder(n * 3);
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                hex.append(' ');
            }
            hex.append(Character.forDigit((payload[i] >> 4) & 0xf, 16)).append(Character.forDigit(payload[i] & 0xf, 16));
        }
        return new PayloadPreview("hex", hex.toString(), n < payload.length, payload.length);
    }

    /** The text of valid UTF-8 bytes without control characters other than tab, CR, LF and without format characters; else null. */
    private static String utf8Text(byte[] payload) {
        CharBuffer chars;
        try {
            chars = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(payload));
        } catch (CharacterCodingException e) {
            return null;
        }
        for (int i = 0; i < chars.length(); i++) {
            char c = chars.charAt(i);
            if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || Character.isISOControl(c) && c >= 0x7f) {
                return null;
            }
            if (Character.getType(Character.codePointAt(chars, i)) == Character.FORMAT) {
                return null;
            }
        }
        return chars.toString();
    }
}
