package dev.sqlqueue.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * No orphans on this machine: a redelivered message never runs beside a copy of itself that a dead
 * worker started and that is still running.
 *
 * <p>A worker killed with {@code kill -9} cannot stop the command it started: that command is re-parented
 * to init and goes on, and once the lease ends the message is delivered again. So before a worker starts
 * a command it writes a run file, {@code <dir>/<message id>.run}, holding a token unique to this run, and
 * gives the command the token in the environment variable {@code SQLQUEUE_RUN}, which every process the
 * command starts inherits (children that double-fork away from the command's process tree included);
 * the file is removed when the command ends. Before a worker on the same machine runs a message it
 * looks for that file: if there is one, every process of this user whose environment holds
 * {@code SQLQUEUE_RUN=<that token>} ({@code /proc/<pid>/environ}) is the old copy, and is killed
 * ({@code SIGKILL}) and waited for (up to 10 s) before the new copy starts. The lost worker could not
 * have recorded the outcome anyway: its lease is gone. (A process that replaces its own environment,
 * {@code env -i ...}, escapes the search.)
 *
 * <p>The directory is per database, table prefix and queue ({@code $XDG_RUNTIME_DIR/sqlqueue/} or
 * {@code <java.io.tmpdir>/sqlqueue-<user>/}, then the first 16 hex digits of the SHA-256 of
 * {@code url|prefix|queue}), owner-only (0700); if it cannot be made so, the guard is off and a
 * warning says so. Across machines only the lease holds: a worker on another machine whose lease ran
 * out (its machine lost, or its renewals failed for longer than the lease) may still be running a copy
 * while the message is redelivered elsewhere; at-least-once delivery means such a command should be
 * idempotent. Thread-safe.
 */
final class OrphanGuard {
    /** The environment variable that marks every process of one run. */
    static final String RUN_VARIABLE = "SQLQUEUE_RUN";
    private static final long KILL_WAIT_MS = 10_000;
    private static final AtomicLong RUNS = new AtomicLong();
    private final Path dir;

    private OrphanGuard(Path dir) {
        this.dir = dir;
    }

    /** A guard that does nothing. */
    static OrphanGuard off() {
        return new OrphanGuard(null);
    }

    /**
     * The guard for one queue of one database.
     *
     * @param warn receives one line if the directory cannot be used (the guard is then off)
     */
    static OrphanGuard forQueue(String url, String prefix, String queue, java.util.function.Consumer<String> warn) {
        Path base = base();
        try {
            Files.createDirectories(base);
            if (!Files.getOwner(base).getName().equals(System.getProperty("user.name"))) {
                warn.accept("sqlqueue: warning: " + base + " belongs to another user; orphan check off");
                return off();
            }
            Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwx------"));
            Path dir = base.resolve(hash(url + "|" + prefix + "|" + queue));
            Files.createDirectories(dir);
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            return new OrphanGuard(dir);
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            warn.accept("sqlqueue: warning: cannot use " + base + " for run files (" + e + "); orphan check off");
            return off();
        }
    }

    private static Path base() {
        String runtime = System.getenv("XDG_RUNTIME_DIR");
        if (runtime != null && !runtime.isBlank() && Files.isDirectory(Path.of(runtime))) {
            return Path.of(runtime, "sqlqueue");
        }
        return Path.of(System.getProperty("java.io.tmpdir"), "sqlqueue-" + System.getProperty("user.name"));
    }

    private static String hash(String s) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The directory of the run files; empty when the guard is off. */
    Optional<Path> directory() {
        return Optional.ofNullable(dir);
    }

    /**
     * Kill what still runs of an earlier run of message {@code id} (a dead worker's), and wait for it.
     *
     * @return the process ids killed, empty if none
     */
    List<Long> reap(long id) throws InterruptedException {
        if (dir == null) {
            return List.of();
        }
        Path f = file(id);
        if (!Files.exists(f)) {
            return List.of();
        }
        List<Long> killed = new ArrayList<>();
        try {
            String token = Files.readString(f).strip();
            if (!token.isEmpty()) {
                byte[] marker = ("\0" + RUN_VARIABLE + "=" + token + "\0").getBytes(StandardCharsets.US_ASCII);
                List<ProcessHandle> found = new ArrayList<>();
                try (var procs = Files.list(Path.of("/proc"))) {
                    for (Path p : (Iterable<Path>) procs::iterator) {
                        String name = p.getFileName().toString();
                        if (name.chars().allMatch(Character::isDigit) && holds(p.resolve("environ"), marker)) {
                            ProcessHandle.of(Long.parseLong(name)).ifPresent(found::add);
                        }
                    }
                }
                for (ProcessHandle h : found) {
                    if (h.destroyForcibly()) {
                        killed.add(h.pid());
                    }
                }
                for (ProcessHandle h : found) {
                    try {
                        h.onExit().get(KILL_WAIT_MS, TimeUnit.MILLISECONDS);
                    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                        // killed with SIGKILL; a zombie waits for its new parent to reap it
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // no /proc, or an unreadable file: nothing to kill
        }
        clear(id);
        return killed;
    }

    /** Whether the environment block {@code environ} (NUL-separated) holds {@code marker} ("\0K=V\0"). */
    private static boolean holds(Path environ, byte[] marker) {
        byte[] env;
        try {
            env = Files.readAllBytes(environ);
        } catch (IOException | SecurityException e) {
            return false; // gone, or another user's
        }
        byte[] block = new byte[env.length + 1];
        System.arraycopy(env, 0, block, 1, env.length); // a leading NUL so the first variable matches too
        outer:
        for (int i = 0; i + marker.length <= block.length; i++) {
            for (int j = 0; j < marker.length; j++) {
                if (block[i + j] != marker[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /**
     * Start a run of message {@code id}: write its run file.
     *
     * @return the value of {@link #RUN_VARIABLE} for the command, or null when the guard is off
     */
    String begin(long id) {
        if (dir == null) {
            return null;
        }
        String token = ProcessHandle.current().pid() + "." + id + "." + RUNS.incrementAndGet() + "." + System.nanoTime();
        try {
            Files.writeString(file(id), token + "\n");
        } catch (IOException e) {
            // the guard is best effort: the command runs all the same
        }
        return token;
    }

    /** The run of message {@code id} has ended. */
    void clear(long id) {
        if (dir == null) {
            return;
        }
        try {
            Files.deleteIfExists(file(id));
        } catch (IOException e) {
            // left behind: the next reap finds no process holding its token and removes it
        }
    }

    private Path file(long id) {
        return dir.resolve(id + ".run");
    }
}
