package dev.sqlqueue.sqlserver;

/**
 * The network timeout both SQL Server backends give a bounded statement's connection (re-review N4): the statement's
 * query timeout plus {@link #GRACE_MS}. The query timeout alone does not end a wait on a server that stopped
 * answering without closing the connection: mssql-jdbc's own comment says so ({@code TDSTimeoutTask}: "If TCP
 * Connection to server is silently dropped, exceeding the query timeout on the same connection does not throw
 * SQLTimeoutException"), and its timer runs only until the first response packet. {@code
 * SQLServerConnection.setNetworkTimeout} sets the socket's read timeout ({@code TDSChannel.setNetworkTimeout}) and
 * sends nothing; a read that waits longer fails, the driver closes the connection ({@code TDSChannel.read},
 * {@code SQLServerConnection.terminate}: SQLState 08S01, "Read timed out") and the server rolls the session's
 * transaction back. Stateless.
 */
public final class NetworkTimeouts {
    /**
     * Milliseconds added to a statement's query timeout: long enough that a server that still answers reports its
     * own time-out first, short enough that a worker on a silent server is back to its retry loop within seconds.
     */
    public static final int GRACE_MS = 10_000;

    private NetworkTimeouts() {
    }

    /**
     * The network timeout for a statement bound of {@code seconds}, in ms (at most {@link Integer#MAX_VALUE}).
     *
     * @param seconds the query timeout, in seconds
     * @return the network timeout for a statement bound of {@code seconds}, in ms (at most {@link Integer#MAX_VALUE})
     */
    public static int forBound(int seconds) {
        return (int) Math.min(Integer.MAX_VALUE, seconds * 1000L + GRACE_MS);
    }
}
