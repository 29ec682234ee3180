package dev.sqlqueue.cli;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The database of {@code sqlqueue demo}: an embedded H2 file database in a new temporary directory,
 * deleted with everything in it by {@link #close()} (after the client closed the database), or the
 * user's own URL, which is left alone.
 */
final class DemoDatabase implements AutoCloseable {
    private final Path dir;
    private final String url;

    private DemoDatabase(Path dir, String url) {
        this.dir = dir;
        this.url = url;
    }

    /** A fresh temporary H2 database. */
    static DemoDatabase createTemporary() throws IOException {
        Path dir = Files.createTempDirectory("sqlqueue-demo-");
        return new DemoDatabase(dir, "jdbc:h2:file:" + dir.resolve("demo"));
    }

    /** The user's database; nothing is deleted. */
    static DemoDatabase of(String url) {
        return new DemoDatabase(null, url);
    }

    String url() {
        return url;
    }

    /** Whether this is a temporary database that {@link #close()} deletes. */
    boolean isTemporary() {
        return dir != null;
    }

    @Override
    public void close() throws IOException {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                Files.deleteIfExists(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
