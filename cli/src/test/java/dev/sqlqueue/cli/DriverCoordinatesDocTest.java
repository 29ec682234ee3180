package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The JDBC drivers a missing-driver error (rule {@code backend.driver}) points to: README.md lists each with the
 * version the build tests, and the BOM manages each, optional, at that same version (the parent POM's property).
 */
class DriverCoordinatesDocTest {
    /** coordinates to the parent POM's version property. */
    private static final Map<String, String> DRIVERS = Map.of(
            "com.h2database:h2", "h2.version",
            "org.postgresql:postgresql", "postgresql.version",
            "org.mariadb.jdbc:mariadb-java-client", "mariadb.version",
            "com.microsoft.sqlserver:mssql-jdbc", "mssql.version",
            "com.teradata.jdbc:terajdbc", "terajdbc.version");

    private static String property(String pom, String name) {
        Matcher m = Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)</" + Pattern.quote(name) + ">").matcher(pom);
        assertTrue(m.find(), name);
        return m.group(1);
    }

    @Test
    void readmeAndBomNameEveryDriverAtTheTestedVersion() throws Exception {
        String parent = Files.readString(Path.of("..", "pom.xml"));
        String bom = Files.readString(Path.of("..", "bom", "pom.xml"));
        String readme = Files.readString(Path.of("..", "README.md"));
        for (Map.Entry<String, String> d : DRIVERS.entrySet()) {
            String version = property(parent, d.getValue());
            String[] ga = d.getKey().split(":");
            assertTrue(readme.contains("`" + d.getKey() + ":" + version + "`"), "README lacks " + d.getKey() + ":" + version);
            Matcher m = Pattern.compile("<dependency><groupId>" + Pattern.quote(ga[0]) + "</groupId><artifactId>"
                    + Pattern.quote(ga[1]) + "</artifactId><version>\\$\\{([a-z0-9.]+)\\}</version><optional>true</optional></dependency>")
                    .matcher(bom);
            assertTrue(m.find(), "the BOM does not manage " + d.getKey() + " as optional");
            String bomVersion = property(bom, m.group(1));
            assertTrue(bomVersion.equals(version), d.getKey() + ": BOM " + bomVersion + ", build " + version);
        }
    }
}
