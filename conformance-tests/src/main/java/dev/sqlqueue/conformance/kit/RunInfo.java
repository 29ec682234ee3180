package dev.sqlqueue.conformance.kit;

import java.time.Duration;
import java.util.List;

/**
 * What the report header states about a run: the sqlqueue version and commit the kit was built from, the backend (provider name), the server as it reports
 * itself, the JDBC driver (DatabaseMetaData), the date read from the database clock (or the JVM's, said
 * so), the URL with any password masked, the modes and case filter, the duration, and the objects the
 * final sweep found left behind (empty when none), the time limit of one case, and what interrupted the
 * run ({@code SIGINT}, {@code SIGTERM}, "a JVM shutdown"), null when nothing did; the JVM (version and vendor), the OS
 * (name, version, architecture) and the server settings that change results ({@link ServerSettings}).
 */
record RunInfo(String version, String commit, String backend, String serverVersion, String driver, String date, String url, List<String> modes,
               List<String> cases, Duration duration, List<String> prefixes, List<String> leftovers,
               Duration caseTimeout, String interrupted, String java, String os, String serverSettings) {
}
