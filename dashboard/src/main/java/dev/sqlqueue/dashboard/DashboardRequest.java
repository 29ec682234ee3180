package dev.sqlqueue.dashboard;

import java.util.Locale;
import java.util.Map;

/**
 * One HTTP request as the dashboard sees it, whichever server received it.
 *
 * @param method the HTTP method, upper case
 * @param mount where the dashboard is mounted, without a trailing slash: {@code ""} at the root,
 *              {@code "/sqlqueue"} under a path (used for cookie paths and redirects)
 * @param path the path below the mount point, starting with {@code /} ({@code /} for the page itself)
 * @param query the decoded query parameters (first value of each)
 * @param form the decoded {@code application/x-www-form-urlencoded} body of a POST (first value of each)
 * @param headers request headers by lower-case name (first value of each)
 */
public record DashboardRequest(String method, String mount, String path, Map<String, String> query,
                               Map<String, String> form, Map<String, String> headers) {
    /**
     * A header by name (any case), or null.
     *
     * @param name the header's name, in any case
     * @return the header's first value, or null when the request has no such header
     */
    public String header(String name) {
        return headers.get(name.toLowerCase(Locale.ROOT));
    }
}
