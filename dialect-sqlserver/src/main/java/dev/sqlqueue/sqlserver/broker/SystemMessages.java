package dev.sqlqueue.sqlserver.broker;

import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the code and description of a Service Broker Error message body (an XML document of namespace
 * http://schemas.microsoft.com/SQL/ServiceBroker/Error with Code and Description elements). Decoded in
 * Java, never inside RECEIVE. Stateless.
 */
public final class SystemMessages {
    private static final Pattern CODE = Pattern.compile("<(?:\\w+:)?Code>(-?\\d+)</(?:\\w+:)?Code>");
    private static final Pattern DESC = Pattern.compile("<(?:\\w+:)?Description>(.*?)</(?:\\w+:)?Description>", Pattern.DOTALL);

    private SystemMessages() {
    }

    /**
     * "code N: description", or a note that the body could not be read.
     *
     * @param body the message body as received
     * @return the description, one line
     */
    public static String describeError(byte[] body) {
        if (body == null || body.length == 0) {
            return "error message without a body";
        }
        String text = text(body);
        Matcher c = CODE.matcher(text);
        Matcher d = DESC.matcher(text);
        String code = c.find() ? c.group(1) : "?";
        String desc = d.find() ? d.group(1) : "(no description)";
        return "code " + code + ": " + desc;
    }

    private static String text(byte[] b) {
        if (b.length >= 2 && (b[0] & 0xff) == 0xff && (b[1] & 0xff) == 0xfe) {
            return new String(b, 2, b.length - 2, StandardCharsets.UTF_16LE);
        }
        if (b.length >= 2 && b[1] == 0) {
            return new String(b, StandardCharsets.UTF_16LE);
        }
        return new String(b, StandardCharsets.UTF_8);
    }
}
