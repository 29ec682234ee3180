package dev.sqlqueue.skiplocked;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The files of an H2 file database that the library opens from a URL, kept owner-only: the folders it has to
 * create are made {@code rwx------} (as {@code ~/.ssh}), and at each open the database's files are set to
 * {@code rw-------}. Without this they have the process's file-creation mask, {@code rw-r--r--} under the usual
 * 022, so every local user could read the queued payloads, and the lock file's key of an {@code AUTO_SERVER}
 * (which lets a client on loopback into the database).
 *
 * <p>Only POSIX file systems; only the plain file forms of an H2 URL (below); a folder that exists is the
 * application's and keeps its mode. A file H2 creates after the open (a trace file at the first error, the lock
 * file another process's exit makes this one re-create when it takes an {@code AUTO_SERVER} file over) has the
 * mask's mode until the next open; inside a folder this class created, other users cannot reach it. Stateless
 * and thread safe; every step tolerates another process doing the same at once (a folder created meanwhile, a
 * file removed meanwhile).
 */
final class H2Files {
    private static final Logger LOG = LoggerFactory.getLogger(H2Files.class);
    private static final Set<PosixFilePermission> FOLDER = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");

    /**
     * The files of database {@code NAME}, H2 2.3.232 {@code org.h2.engine.Constants}: {@code NAME.mv.db}
     * ({@code SUFFIX_MV_FILE}), {@code NAME.lock.db} ({@code SUFFIX_LOCK_FILE}), {@code NAME.trace.db}
     * ({@code SUFFIX_TRACE_FILE}).
     */
    static final List<String> SUFFIXES = List.of(".mv.db", ".lock.db", ".trace.db");

    private H2Files() {
    }

    /**
     * The database path of an embedded H2 file URL, as H2 2.3.232 reads it ({@code ConnectionInfo.parseName},
     * {@code FilePathDisk.expandUserHomeDirectory}): {@code jdbc:h2:[file:]NAME[;settings]} where NAME is absolute,
     * starts with {@code ~/} (the user's home) or with {@code ./} or {@code ../} (the current directory). Empty for
     * every other URL: in memory ({@code mem:}, {@code .}), over the network ({@code tcp:}, {@code ssl:}), another H2
     * file system ({@code nio:}, {@code split:}, {@code zip:}, ...), a relative name H2 refuses, or any relative
     * name when the JVM sets H2's {@code h2.baseDir}.
     */
    static Optional<Path> databasePath(String url) {
        if (url == null || !url.startsWith("jdbc:h2:")) {
            return Optional.empty();
        }
        String name = url.substring("jdbc:h2:".length());
        int semicolon = name.indexOf(';');
        if (semicolon >= 0) {
            name = name.substring(0, semicolon);
        }
        if (name.startsWith("file:")) {
            name = name.substring("file:".length());
        }
        if (name.contains(":")) {
            return Optional.empty(); // mem:, tcp:, ssl:, another file system's prefix
        }
        Path path;
        if (name.startsWith("~/")) {
            path = Path.of(System.getProperty("user.home")).resolve(name.substring(2));
        } else if (name.startsWith("/")) {
            path = Path.of(name);
        } else if ((name.startsWith("./") || name.startsWith("../")) && System.getProperty("h2.baseDir") == null) {
            path = Path.of(name).toAbsolutePath();
        } else {
            return Optional.empty();
        }
        return Optional.of(path.normalize());
    }

    /** Creates the missing folders above {@code database}, each {@code rwx------}; nothing off POSIX file systems. */
    static void createFolders(Path database) {
        Path folder = database.getParent();
        if (folder == null || !posix()) {
            return;
        }
        Deque<Path> missing = new ArrayDeque<>();
        for (Path f = folder; f != null && !Files.exists(f); f = f.getParent()) {
            missing.push(f);
        }
        for (Path f : missing) {
            try {
                Files.createDirectory(f, PosixFilePermissions.asFileAttribute(FOLDER));
            } catch (FileAlreadyExistsException createdMeanwhile) {
                // another process opening the same database made it
            } catch (IOException e) {
                // H2 tries again when it opens the file, and reports what stops it
                LOG.debug("cannot create {}: {}", f, e.toString());
                return;
            }
        }
    }

    /** Sets each file of {@code database} ({@link #SUFFIXES}) that exists and is wider to {@code rw-------}. */
    static void restrictFiles(Path database) {
        if (!posix()) {
            return;
        }
        String name = database.getFileName().toString();
        for (String suffix : SUFFIXES) {
            Path file = database.resolveSibling(name + suffix);
            try {
                if (!Files.getPosixFilePermissions(file).equals(FILE)) {
                    Files.setPosixFilePermissions(file, FILE);
                }
            } catch (java.nio.file.NoSuchFileException absent) {
                // not written (no trace, no lock file without AUTO_SERVER), or removed meanwhile
            } catch (IOException | SecurityException e) {
                // another user's file: its owner decides
                LOG.debug("cannot make {} owner-only: {}", file, e.toString());
            }
        }
    }

    private static boolean posix() {
        return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    }
}
