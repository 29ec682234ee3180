package dev.sqlqueue.dashboard;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The dashboard's answer to one request: status, body and the headers to send besides the security
 * headers every response carries ({@link DashboardApp#SECURITY_HEADERS}).
 *
 * @param status the HTTP status
 * @param contentType the body's media type
 * @param body the body bytes
 * @param headers further headers (Location, Set-Cookie, ...)
 */
public record DashboardResponse(int status, String contentType, byte[] body, Map<String, String> headers) {
    static DashboardResponse json(int status, String json) {
        return new DashboardResponse(status, "application/json; charset=utf-8", json.getBytes(StandardCharsets.UTF_8), Map.of());
    }

    static DashboardResponse error(int status, String message) {
        return json(status, new Json().beginObject().member("error", message).endObject().toString());
    }

    static DashboardResponse text(int status, String text) {
        return new DashboardResponse(status, "text/plain; charset=utf-8", text.getBytes(StandardCharsets.UTF_8), Map.of());
    }

    DashboardResponse withHeader(String name, String value) {
        Map<String, String> h = new LinkedHashMap<>(headers);
        h.put(name, value);
        return new DashboardResponse(status, contentType, body, h);
    }
}
