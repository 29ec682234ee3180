package dev.sqlqueue.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * The folder of the default database, {@code .sqlqueue} in the current directory. The library creates it
 * owner-only ({@code rwx------}) and keeps the database's files {@code rw-------}; a folder that already exists
 * with wider modes is the user's to change, and each command that uses it says so in one line.
 */
final class DefaultFolder {
    private static final Set<PosixFilePermission> OWNER = EnumSet.of(PosixFilePermission.OWNER_READ,
            PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);

    private DefaultFolder() {
    }

    /** {@code <current directory>/.sqlqueue}, absolute. */
    static Path path() {
        return Path.of("").toAbsolutePath().resolve(".sqlqueue");
    }

    /**
     * The warning for {@code folder} when it is a folder with any permission for its group or others; empty when it
     * is absent, not a folder (opening the database then fails with H2's own message), owner-only, or its file
     * system has no POSIX modes.
     */
    static Optional<String> warning(Path folder) {
        PosixFileAttributes attributes;
        try {
            attributes = Files.readAttributes(folder, PosixFileAttributes.class);
        } catch (IOException | UnsupportedOperationException absentOrNotPosix) {
            return Optional.empty();
        }
        Set<PosixFilePermission> modes = attributes.permissions();
        if (!attributes.isDirectory() || OWNER.containsAll(modes)) {
            return Optional.empty();
        }
        return Optional.of("sqlqueue: warning: " + folder + " is open to other users (" + PosixFilePermissions.toString(modes)
                + "); make it owner-only: chmod 700 " + folder);
    }
}
