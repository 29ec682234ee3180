package dev.sqlqueue.spring;

import dev.sqlqueue.dashboard.DashboardApp;
import dev.sqlqueue.dashboard.DashboardRequest;
import dev.sqlqueue.dashboard.DashboardResponse;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The dashboard as a servlet, mounted at {@code sqlqueue.dashboard.path} by
 * {@link SqlQueueDashboardAutoConfiguration}. It runs behind the application's filters, so Spring
 * Security (when present) protects it like any other path; the dashboard's own token and CSRF check
 * apply on top. Bodies over 64 KB are refused (413).
 */
public class SqlQueueDashboardServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private static final int MAX_BODY = 64 * 1024;

    private final transient DashboardApp app;

    /**
     * A servlet serving one dashboard.
     *
     * @param app the dashboard that answers every request
     */
    public SqlQueueDashboardServlet(DashboardApp app) {
        this.app = app;
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String mount = req.getContextPath() + req.getServletPath();
        String path = req.getPathInfo();
        if (path == null || path.isEmpty()) {
            resp.setStatus(HttpServletResponse.SC_SEE_OTHER);
            resp.setHeader("Location", mount + "/" + (req.getQueryString() == null ? "" : "?" + req.getQueryString()));
            return;
        }
        Map<String, String> headers = new LinkedHashMap<>();
        for (String name : Collections.list(req.getHeaderNames())) {
            headers.putIfAbsent(name.toLowerCase(Locale.ROOT), req.getHeader(name));
        }
        Map<String, String> form = Map.of();
        String method = req.getMethod().toUpperCase(Locale.ROOT);
        if ("POST".equals(method)) {
            byte[] body;
            try (InputStream in = req.getInputStream()) {
                body = in.readNBytes(MAX_BODY + 1);
            }
            if (body.length > MAX_BODY) {
                resp.sendError(413);
                return;
            }
            String type = req.getContentType();
            if (type != null && type.startsWith("application/x-www-form-urlencoded")) {
                form = decode(new String(body, StandardCharsets.UTF_8));
            }
        }
        DashboardResponse r = app.handle(new DashboardRequest(method, mount, path, decode(req.getQueryString()), form, headers));
        resp.setStatus(r.status());
        r.headers().forEach(resp::setHeader);
        resp.setContentType(r.contentType());
        resp.setContentLength(r.body().length);
        if (!"HEAD".equals(method)) {
            resp.getOutputStream().write(r.body());
        }
    }

    private static Map<String, String> decode(String raw) {
        Map<String, String> m = new LinkedHashMap<>();
        if (raw == null || raw.isEmpty()) {
            return m;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            m.putIfAbsent(k, eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return m;
    }
}
