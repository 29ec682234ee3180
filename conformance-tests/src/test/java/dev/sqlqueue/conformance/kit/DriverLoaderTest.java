package dev.sqlqueue.conformance.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code --driver-path}: a driver from a jar outside the class path is usable through DriverManager. */
class DriverLoaderTest {
    @Test
    void aDriverOutsideTheClassPathIsRegisteredThroughTheShim() throws Exception {
        String jar = System.getProperty("kit.test.driver.jar");
        assumeTrue(jar != null && Files.exists(Path.of(jar)), "the H2 jar in the local Maven repository: " + jar);
        assertThrows(ClassNotFoundException.class, () -> Class.forName("org.h2.Driver"), "H2 is not on this class path");
        List<String> registered = new ArrayList<>();
        try (URLClassLoader cl = DriverLoader.load(List.of(Path.of(jar)), getClass().getClassLoader(), registered)) {
            assertEquals(1, registered.size(), registered.toString());
            assertTrue(registered.get(0).startsWith("org.h2.Driver "), registered.toString());
            try (Connection c = DriverManager.getConnection("jdbc:h2:mem:driverloader", "sa", "");
                 Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT 6 * 7")) {
                assertTrue(rs.next());
                assertEquals(42, rs.getInt(1));
                assertEquals("H2 JDBC Driver", c.getMetaData().getDriverName());
            }
        }
    }

    @Test
    void aMissingPathIsABadOption() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DriverLoader.jars(List.of(Path.of("/no/such/terajdbc.jar"))));
        assertTrue(e.getMessage().startsWith("driver-path: /no/such/terajdbc.jar does not exist"), e.getMessage());
    }
}
