package dev.sqlqueue.sqlserver.broker;

import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Send benchmark for a real SQL Server with Service Broker enabled (none exists on the project's
 * machines, so it has never been run): for spread factor 1 and 150 and 1..64 sending threads, enqueues
 * for a fixed time on a fresh queue whose dialog pool holds one dialog per thread, and prints messages
 * per second and the change of PAGELATCH_EX / PAGELATCH_SH waits in sys.dm_os_wait_stats (server-wide,
 * so run it on an otherwise idle server; the login needs VIEW SERVER STATE). Each step drops its queue
 * and tables afterwards. Usage (the command is in docs/backends/sqlserver-broker.md):
 *
 * <pre>SendBenchmark url user password [seconds per step, default 10] [payload bytes, default 100]
 *     [thread counts, default 1,2,4,8,16,32,64]</pre>
 */
public final class SendBenchmark {
    private SendBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: SendBenchmark url user password [seconds] [payloadBytes] [threads,...]");
            System.exit(2);
        }
        String url = args[0];
        String user = args[1];
        String password = args[2];
        int seconds = args.length > 3 ? Integer.parseInt(args[3]) : 10;
        int payload = args.length > 4 ? Integer.parseInt(args[4]) : 100;
        int[] threads = args.length > 5 ? Arrays.stream(args[5].split(",")).mapToInt(Integer::parseInt).toArray()
                : new int[] {1, 2, 4, 8, 16, 32, 64};
        System.out.println("spread,threads,messages,msg_per_s,pagelatch_ex_waits,pagelatch_ex_ms,pagelatch_sh_waits,pagelatch_sh_ms");
        for (int spread : new int[] {1, 150}) {
            for (int n : threads) {
                step(url, user, password, spread, n, seconds, payload);
            }
        }
    }

    private static void step(String url, String user, String password, int spread, int threads, int seconds, int payload)
            throws Exception {
        QueueConfig config = QueueConfig.builder().url(url).user(user).password(password).backend("sqlserver-broker")
                .tablePrefix("bench" + spread + "t" + threads + "_").poolSize(threads + 2)
                .option("broker.dialogPoolSize", String.valueOf(threads)).option("broker.spreadFactor", String.valueOf(spread))
                .build();
        QueueName q = QueueName.of("bench");
        ServiceBrokerBackend b = (ServiceBrokerBackend) new ServiceBrokerProvider().open(config);
        try {
            b.createQueue(q);
            Message m = Message.of(new byte[payload]);
            runFor(b, q, m, threads, 1); // fills the pool (and the 150 trick's spacers) before measuring
            Map<String, long[]> before = waits(url, user, password);
            long start = System.nanoTime();
            long sent = runFor(b, q, m, threads, seconds);
            double elapsed = (System.nanoTime() - start) / 1e9;
            Map<String, long[]> after = waits(url, user, password);
            long[] ex = delta(before, after, "PAGELATCH_EX");
            long[] sh = delta(before, after, "PAGELATCH_SH");
            System.out.printf("%d,%d,%d,%.0f,%d,%d,%d,%d%n", spread, threads, sent, sent / elapsed, ex[0], ex[1], sh[0], sh[1]);
        } finally {
            b.dropSchema();
            b.close();
        }
    }

    private static long runFor(ServiceBrokerBackend b, QueueName q, Message m, int threads, int seconds) throws InterruptedException {
        AtomicLong sent = new AtomicLong();
        long until = System.nanoTime() + seconds * 1_000_000_000L;
        Thread[] all = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            all[i] = new Thread(() -> {
                while (System.nanoTime() < until) {
                    b.enqueue(q, m);
                    sent.incrementAndGet();
                }
            });
            all[i].start();
        }
        for (Thread t : all) {
            t.join();
        }
        return sent.get();
    }

    private static Map<String, long[]> waits(String url, String user, String password) throws SQLException {
        Map<String, long[]> out = new HashMap<>();
        try (Connection c = DriverManager.getConnection(url, user, password); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(AdminStatements.pageLatchWaits())) {
            while (rs.next()) {
                out.put(rs.getString(1), new long[] {rs.getLong(2), rs.getLong(3)});
            }
        }
        return out;
    }

    private static long[] delta(Map<String, long[]> a, Map<String, long[]> b, String type) {
        long[] x = a.getOrDefault(type, new long[2]);
        long[] y = b.getOrDefault(type, new long[2]);
        return new long[] {y[0] - x[0], y[1] - x[1]};
    }
}
