package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which H2 URLs name a file database whose folders and files {@link H2Files} keeps owner-only, and where. */
class H2FilesTest {
    @Test
    void theDatabasePathOfEachUrlForm() {
        Path home = Path.of(System.getProperty("user.home"));
        Path cwd = Path.of("").toAbsolutePath();
        assertEquals(Optional.of(Path.of("/data/q/db")), H2Files.databasePath("jdbc:h2:file:/data/q/db;AUTO_SERVER=TRUE"));
        assertEquals(Optional.of(Path.of("/data/q/db")), H2Files.databasePath("jdbc:h2:/data/q/../q/db"));
        assertEquals(Optional.of(home.resolve("q/db")), H2Files.databasePath("jdbc:h2:~/q/db"));
        assertEquals(Optional.of(home.resolve("q/db")), H2Files.databasePath("jdbc:h2:file:~/q/db;WRITE_DELAY=0"));
        assertEquals(Optional.of(cwd.resolve("q/db")), H2Files.databasePath("jdbc:h2:./q/db"));
        assertEquals(Optional.of(cwd.getParent().resolve("db")), H2Files.databasePath("jdbc:h2:file:../db"));
        // in memory, over the network, another H2 file system, a name H2 refuses (relative without ./)
        for (String url : new String[] {"jdbc:h2:mem:q", "jdbc:h2:.", "jdbc:h2:tcp://localhost/~/q", "jdbc:h2:ssl://h/q",
                "jdbc:h2:nio:/data/q", "jdbc:h2:split:/data/q", "jdbc:h2:zip:/data/q.zip!/db", "jdbc:h2:q/db",
                "jdbc:postgresql://localhost/q"}) {
            assertEquals(Optional.empty(), H2Files.databasePath(url), url);
        }
    }

}
