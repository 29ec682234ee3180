package dev.sqlqueue.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * No orphans on this machine: a redelivered message never runs beside a copy of itself that a dead
 * worker started and that is still running.
 *
 * <p>A worker killed with {@code kill -9} cannot stop the command it started: that command is re-parented
 * to init and goes on, and once the lease ends the message is delivered again. So while a command runs,
 * its worker keeps a PID file per message, {@code <dir>/<message id>.pid}, holding the command's process
 * id and start time (milliseconds since the epoch, from {@code /proc}); the file is removed when the
 * command ends. Before a worker on the same machine runs a message it checks for that file: a process
 * with that id and the same start time (so not a recycled id) is the old copy, and it is killed with its
 * whole process tree first, which is waited for (up to 10 s). The lost worker could not have recorded its
 * outcome anyway: its lease is gone.
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
    private static final long KILL_WAIT_MS = 10_000;
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
            return new OrphanGuard(dir);
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            warn.accept("sqlqueue: warning: cannot use " + base + " for PID files (" + e + "); orphan check off");
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

    /** The directory of the PID files; empty when the guard is off. */
    Optional<Path> directory() {
        return Optional.ofNullable(dir);
    }

    /**
     * Kill a still-running copy of message {@code id} recorded by another (dead) worker, and wait for it.
     *
     * @return the killed process id, or -1 if there was none
     */
    long reap(long id) throws InterruptedException {
        if (dir == null) {
            return -1;
        }
        Path f = file(id);
        if (!Files.exists(f)) {
            return -1;
        }
        long killed = -1;
        try {
            String[] parts = Files.readString(f).strip().split(" ");
            long pid = Long.parseLong(parts[0]);
            long startMs = Long.parseLong(parts[1]);
            Optional<ProcessHandle> h = ProcessHandle.of(pid);
            if (h.isPresent() && h.get().isAlive() && startMs == startMillis(h.get())) {
                ShellCommand.killTree(h.get());
                try {
                    h.get().onExit().get(KILL_WAIT_MS, TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                    // killed with SIGKILL; a zombie waits for its new parent to reap it
                }
                killed = pid;
            }
        } catch (IOException | RuntimeException e) {
            // unreadable or half-written file: no process to kill
        }
        clear(id);
        return killed;
    }

    /** Record that message {@code id} runs as process {@code p}. */
    void record(long id, Process p) {
        if (dir == null) {
            return;
        }
        try {
            Files.writeString(file(id), p.pid() + " " + startMillis(p.toHandle()) + "\n");
        } catch (IOException e) {
            // the guard is best effort: the command runs all the same
        }
    }

    /** The command of message {@code id} has ended. */
    void clear(long id) {
        if (dir == null) {
            return;
        }
        try {
            Files.deleteIfExists(file(id));
        } catch (IOException e) {
            // left behind: the next reap finds a dead process and removes it
        }
    }

    private Path file(long id) {
        return dir.resolve(id + ".pid");
    }

    private static long startMillis(ProcessHandle h) {
        return h.info().startInstant().map(Instant::toEpochMilli).orElse(0L);
    }
}
