package dev.sqlqueue.cli;

import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.SqlQueue;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Runs the command in-process, as picocli executes it, with captured output. */
final class Cli {
    private final String url;

    /** Commands against an H2 file database in {@code dir}. */
    Cli(Path dir) {
        this.url = "jdbc:h2:file:" + dir.resolve("db") + ";AUTO_SERVER=TRUE";
    }

    private Cli(String url) {
        this.url = url;
    }

    /**
     * Commands against {@code db}: {@code h2} (a file database in {@code dir}), {@code postgresql} or
     * {@code mariadb} (the project's servers, see DEVELOPERS.md).
     */
    static Cli on(String db, Path dir) {
        return switch (db) {
            case "h2" -> new Cli(dir);
            case "postgresql" -> new Cli("jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
            case "mariadb" -> new Cli("jdbc:mariadb://127.0.0.1:3306/test?user=root");
            default -> throw new IllegalArgumentException(db);
        };
    }

    /**
     * An H2 file database in {@code dir} opened as the default database is ({@code WRITE_DELAY=0}: every
     * commit is written by the committing thread, as 'sqlqueue' does without --url).
     */
    static Cli h2AsDefault(Path dir) {
        return new Cli("jdbc:h2:file:" + dir.resolve("db") + ";AUTO_SERVER=TRUE;WRITE_DELAY=0");
    }

    /** A queue name no other run uses, for the shared servers. */
    static String uniqueQueue(String base) {
        return base + "_" + Long.toString(System.nanoTime(), 36);
    }

    String url() {
        return url;
    }

    /** What one run printed and returned. */
    record Run(int code, String out, String err) {
        List<String> errLines() {
            return err.isEmpty() ? List.of() : Arrays.asList(err.split("\\R"));
        }

        @Override
        public String toString() {
            return "exit " + code + "\n--- out\n" + out + "--- err\n" + err;
        }
    }

    /** Run {@code args} with {@code --url} of this database appended to the command. */
    Run run(String... args) {
        List<String> all = new ArrayList<>(Arrays.asList(args));
        all.add("--url=" + url);
        return raw(all.toArray(String[]::new));
    }

    /** Run exactly {@code args}. */
    static Run raw(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.commandLine(new PrintWriter(out, true), new PrintWriter(err, true)).execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    /**
     * Starts the command in a JVM of its own in {@code dir}, standard error merged into standard output, with the
     * command's own logging configuration (src/main/resources ahead of the tests' one on the class path).
     */
    static Process process(Path dir, String... args) throws java.io.IOException {
        return new ProcessBuilder(command(args)).directory(dir.toFile()).redirectErrorStream(true).start();
    }

    /**
     * As {@link #process}, with standard output and error written to {@code log}, under the file-creation mask 022
     * (files {@code rw-r--r--}, folders {@code rwxr-xr-x} unless the command sets their modes itself), whatever mask
     * the build runs with. The process is the JVM itself ({@code sh -c 'umask 022 && exec java ...'}).
     */
    static Process processWithUmask022(Path dir, Path log, String... args) throws java.io.IOException {
        List<String> command = new ArrayList<>(List.of("/bin/sh", "-c", "umask 022 && exec \"$0\" \"$@\""));
        command.addAll(command(args));
        return new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
    }

    /**
     * As {@link #process}, standard output and error merged, with a JVM tuned to start fast (C1 only, serial GC): for
     * tests that start the command many times.
     */
    static Process quickProcess(Path dir, String... args) throws java.io.IOException {
        List<String> command = command(args);
        command.addAll(1, List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto"));
        return new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    }

    /** As {@link #process}, the JVM limited to a heap of {@code heapMb} MiB ({@code -Xmx}). */
    static Process processWithHeap(Path dir, int heapMb, String... args) throws java.io.IOException {
        List<String> command = command(args);
        command.add(1, "-Xmx" + heapMb + "m");
        return new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    }

    /** The command line of {@link #process}: this JVM's java, the class path with src/main's resources first. */
    private static List<String> command(String... args) {
        String classPath = java.util.stream.Stream.of(System.getProperty("java.class.path").split(java.io.File.pathSeparator))
                .sorted(java.util.Comparator.comparing((String e) -> e.endsWith("test-classes")))
                .collect(java.util.stream.Collectors.joining(java.io.File.pathSeparator));
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", classPath, Main.class.getName()));
        command.addAll(Arrays.asList(args));
        return command;
    }

    /** A client of the same database, for assertions through the public API. */
    SqlQueue client() {
        return SqlQueue.open(QueueConfig.builder().url(url).history(true).build());
    }
}
