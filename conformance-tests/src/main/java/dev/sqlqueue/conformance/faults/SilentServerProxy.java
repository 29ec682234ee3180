package dev.sqlqueue.conformance.faults;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay on 127.0.0.1 between the tests and a database server that can go silent: while {@link
 * #silent} is set, bytes in either direction are read and dropped, and every connection stays open. That
 * is a server that stopped answering without closing anything (a network partition, a dropped NAT or
 * load-balancer entry, a frozen host): a client reading its answer waits until its own socket timeout,
 * for ever without one. For tests of a backend's bounds (any database reached over TCP); one thread per direction
 * and connection; thread-safe.
 */
public final class SilentServerProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final String targetHost;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final List<Link> links = new CopyOnWriteArrayList<>();
    private volatile boolean silent;

    /** One relayed connection; once severed, it passes nothing for ever. */
    private static final class Link {
        volatile boolean severed;
    }

    private SilentServerProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread accept = new Thread(this::acceptLoop, "silent-proxy-accept");
        accept.setDaemon(true);
        accept.start();
    }

    /**
     * A relay on a free loopback port to {@code host:port}, passing bytes until {@link #silent} is set.
     *
     * @param host the server's host
     * @param port the server's port
     * @return the running relay; closing it closes every relayed connection
     * @throws IOException when no loopback port can be listened on
     */
    public static SilentServerProxy to(String host, int port) throws IOException {
        return new SilentServerProxy(host, port);
    }

    /**
     * The relay's loopback port: connect here instead of to the server.
     *
     * @return the loopback port the relay listens on
     */
    public int port() {
        return listener.getLocalPort();
    }

    /**
     * While true, nothing passes in either direction; connections stay open.
     *
     * @param on true to stop passing bytes, false to pass them again
     */
    public void silent(boolean on) {
        silent = on;
    }

    /**
     * Every connection relayed so far passes nothing from now on, and stays open: each is broken without a
     * reset, as a partition that dropped its NAT entry leaves it. New connections pass as before.
     */
    public void severExisting() {
        links.forEach(l -> l.severed = true);
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(targetHost, targetPort);
                sockets.add(client);
                sockets.add(server);
                Link link = new Link();
                links.add(link);
                pump(client, server, "up", link);
                pump(server, client, "down", link);
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void pump(Socket from, Socket to, String direction, Link link) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[16384];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    if (!silent && !link.severed) {
                        out.write(buf, 0, n);
                        out.flush();
                    }
                }
            } catch (IOException ignored) {
                // one side closed
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "silent-proxy-" + direction);
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        sockets.forEach(SilentServerProxy::closeQuietly);
    }
}
