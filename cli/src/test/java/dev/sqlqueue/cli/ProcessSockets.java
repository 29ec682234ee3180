package dev.sqlqueue.cli;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The TCP sockets of a process, read from Linux's {@code /proc} (proc(5)): the socket inodes of its open file
 * descriptors ({@code /proc/PID/fd/N} links to {@code socket:[INODE]}), matched with the rows of
 * {@code /proc/PID/net/tcp} and {@code tcp6}. Those tables list every socket of the process's network namespace;
 * only the rows whose inode the process holds are its own. States (include/net/tcp_states.h): {@code 01}
 * ESTABLISHED, {@code 0A} LISTEN.
 */
final class ProcessSockets {
    /** One socket end: an address and port. */
    record End(InetAddress address, int port) {
        /** In 127.0.0.0/8 or {@code ::1} (an IPv4-mapped {@code ::ffff:127.x.y.z} is an IPv4 address to Java). */
        boolean loopback() {
            return address.isLoopbackAddress();
        }

        @Override
        public String toString() {
            return address.getHostAddress() + ":" + port;
        }
    }

    private ProcessSockets() {
    }

    /** The local addresses process {@code pid} listens on; empty when it has none (or has exited). */
    static List<End> listening(long pid) throws IOException {
        return sockets(pid, "0A", 1);
    }

    /** The remote ends of the connections process {@code pid} has established; empty when none (or it has exited). */
    static List<End> connectedTo(long pid) throws IOException {
        return sockets(pid, "01", 2);
    }

    /** Column {@code column} (1 local, 2 remote) of the rows of {@code pid}'s sockets in {@code state}. */
    private static List<End> sockets(long pid, String state, int column) throws IOException {
        Path proc = Path.of("/proc", Long.toString(pid));
        Set<String> inodes = new HashSet<>();
        try (Stream<Path> fds = Files.list(proc.resolve("fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring("socket:[".length(), target.length() - 1));
                    }
                } catch (IOException closedMeanwhile) {
                    // the descriptor was closed between the listing and the read
                }
            }
        } catch (java.nio.file.NoSuchFileException exited) {
            return List.of();
        }
        List<End> ends = new ArrayList<>();
        for (String table : List.of("tcp", "tcp6")) {
            List<String> rows;
            try {
                rows = Files.readAllLines(proc.resolve("net").resolve(table));
            } catch (java.nio.file.NoSuchFileException exitedOrNoIpv6) {
                continue;
            }
            for (String row : rows.subList(1, rows.size())) {
                // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ...
                String[] f = row.trim().split("\\s+");
                if (f[3].equals(state) && inodes.contains(f[9])) {
                    String[] end = f[column].split(":");
                    ends.add(new End(InetAddress.getByAddress(address(end[0])), Integer.parseInt(end[1], 16)));
                }
            }
        }
        return ends;
    }

    /** proc(5): the address as hex 32-bit words, each in the host's byte order (little-endian on x86 and arm64). */
    static byte[] address(String hex) {
        boolean little = java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.LITTLE_ENDIAN;
        byte[] bytes = new byte[hex.length() / 2];
        for (int word = 0; word < bytes.length / 4; word++) {
            for (int i = 0; i < 4; i++) {
                int at = word * 8 + (little ? 3 - i : i) * 2;
                bytes[word * 4 + i] = (byte) Integer.parseInt(hex.substring(at, at + 2), 16);
            }
        }
        return bytes;
    }
}
