package dev.sqlqueue.conformance.kit;

import java.util.Locale;

/**
 * The session tag the kit puts on every connection of a case, so that a kill hook can single out the
 * kit's own sessions on a shared server: {@code sqlqueue-<prefix>} as PostgreSQL's
 * {@code ApplicationName}, SQL Server's {@code applicationName} ({@code program_name} in
 * {@code sys.dm_exec_sessions}) and a MariaDB/MySQL connection attribute {@code program_name}
 * (visible in {@code performance_schema.session_connect_attrs} when the performance schema is on).
 */
final class KitUrls {
    private KitUrls() {
    }

    static String tag(String prefix) {
        return "sqlqueue-" + prefix;
    }

    static boolean isPostgres(String url) {
        return url.startsWith("jdbc:postgresql:");
    }

    static boolean isMariaDb(String url) {
        return url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:");
    }

    static boolean isSqlServer(String url) {
        return url.regionMatches(true, 0, "jdbc:sqlserver:", 0, "jdbc:sqlserver:".length());
    }

    static boolean isH2(String url) {
        return url.startsWith("jdbc:h2:");
    }

    /** True when the user's URL already names the application, so the kit cannot tag its sessions. */
    static boolean userSetsTag(String url) {
        String u = url.toLowerCase(Locale.ROOT);
        if (isPostgres(url)) {
            return u.contains("applicationname=");
        }
        if (isSqlServer(url)) {
            return u.contains("applicationname=");
        }
        if (isMariaDb(url)) {
            return u.contains("connectionattributes=");
        }
        return false;
    }

    /** The user's URL with the session tag of {@code prefix} added, where the driver supports one. */
    static String tagged(String url, String prefix) {
        if (userSetsTag(url)) {
            return url;
        }
        if (isPostgres(url)) {
            return url + (url.contains("?") ? "&" : "?") + "ApplicationName=" + tag(prefix);
        }
        if (isMariaDb(url)) {
            return url + (url.contains("?") ? "&" : "?") + "connectionAttributes=program_name:" + tag(prefix);
        }
        if (isSqlServer(url)) {
            return url + (url.endsWith(";") ? "" : ";") + "applicationName=" + tag(prefix);
        }
        return url;
    }
}
