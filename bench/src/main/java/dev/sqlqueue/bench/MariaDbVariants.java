package dev.sqlqueue.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The raw lease loop's forms on MariaDB, measured by turns for issue 32 (docs/benchmarks.md), on a table of its own
 * ({@code v_message}, dropped at the end): {@code MariaDbVariants <jdbc url> <messages> <rounds> <forms>}, forms
 * (comma-separated) {@code byid} (single-id UPDATE and DELETE in JDBC batches), {@code bulk} (the same over
 * Connector/J's bulk protocol, {@code useBulkStmts=true}), {@code inlist} ({@code WHERE id IN (...)}),
 * {@code inlist-token} (the ack also matching the lease token, through an index on it), {@code combo} (the acks of
 * the last claim and the next claim in one transaction). 8 threads, claims of 100, user root without password.
 */
public final class MariaDbVariants {
    static String url;
    static final AtomicInteger deadlocks = new AtomicInteger();

    static HikariDataSource pool(boolean bulk) {
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(url);
        hc.setUsername("root");
        hc.setPassword("");
        hc.setMaximumPoolSize(12);
        hc.setAutoCommit(false);
        hc.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        if (bulk) {
            hc.addDataSourceProperty("useBulkStmts", "true");
        }
        return new HikariDataSource(hc);
    }

    interface Work<T> { T run(Connection c) throws SQLException; }

    static <T> T tx(HikariDataSource ds, Work<T> w) throws Exception {
        for (int attempt = 1; ; attempt++) {
            try (Connection c = ds.getConnection()) {
                try {
                    T r = w.run(c);
                    c.commit();
                    return r;
                } catch (SQLException e) {
                    c.rollback();
                    if (e.getErrorCode() == 1213 && attempt < 20) {
                        deadlocks.incrementAndGet();
                        Thread.sleep(ThreadLocalRandom.current().nextLong(1, 5));
                        continue;
                    }
                    throw e;
                }
            }
        }
    }

    static String in(long[] ids) {
        StringBuilder b = new StringBuilder("(");
        for (int i = 0; i < ids.length; i++) {
            b.append(i == 0 ? "?" : ",?");
        }
        return b.append(')').toString();
    }

    public static void main(String[] args) throws Exception {
        url = args[0];
        int n = Integer.parseInt(args[1]);
        int reps = Integer.parseInt(args[2]);
        List<String> variants = Arrays.asList(args[3].split(","));
        HikariDataSource plain = pool(false);
        HikariDataSource bulk = pool(true);
        try (Connection c = plain.getConnection(); Statement st = c.createStatement()) {
            st.execute("drop table if exists v_message");
            st.execute("create table v_message (id bigint not null auto_increment primary key, queue varchar(48) not null,"
                    + " priority int not null, visible_at bigint not null, enqueued_at bigint not null, attempts int not null,"
                    + " lease_token bigint, claimed_at bigint, headers mediumtext not null, payload mediumblob not null,"
                    + " last_error text, group_key varchar(128)) engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin");
            st.execute("create index v_claim on v_message (queue, priority desc, visible_at, id)");
            st.execute("create index v_token on v_message (lease_token)");
            c.commit();
        }
        byte[] payload = new byte[100];
        for (int r = 0; r < reps; r++) {
            for (String v : variants) {
                fill(plain, n, payload);
                deadlocks.set(0);
                HikariDataSource ds = v.startsWith("bulk") ? bulk : plain;
                AtomicInteger done = new AtomicInteger();
                AtomicLong end = new AtomicLong();
                long start = System.nanoTime();
                List<Thread> ts = new ArrayList<>();
                for (int w = 0; w < 8; w++) {
                    Thread t = new Thread(() -> {
                        try {
                            while (done.get() < n) {
                                int got = step(ds, v);
                                if (got == 0) {
                                    Thread.sleep(1);
                                    continue;
                                }
                                if (done.addAndGet(got) == n) {
                                    end.set(System.nanoTime());
                                }
                            }
                        } catch (Exception e) {
                            e.printStackTrace();
                            System.exit(1);
                        }
                    });
                    ts.add(t);
                    t.start();
                }
                for (Thread t : ts) {
                    t.join();
                }
                System.out.printf(Locale.ROOT, "%s: %.0f msg/s, deadlocks %d%n", v, n / ((end.get() - start) / 1e9), deadlocks.get());
            }
        }
        try (Connection c = plain.getConnection(); Statement st = c.createStatement()) {
            st.execute("drop table v_message");
        }
        System.exit(0);
    }

    static final String NOW = "(cast(unix_timestamp(now(3)) * 1000 as signed))";

    static void fill(HikariDataSource ds, int n, byte[] payload) throws Exception {
        for (int i = 0; i < n; i += 100) {
            tx(ds, c -> {
                try (PreparedStatement ps = c.prepareStatement("insert into v_message (queue, priority, visible_at, enqueued_at,"
                        + " attempts, headers, payload) values (?, 0, " + NOW + ", " + NOW + ", 0, '', ?)")) {
                    for (int k = 0; k < 100; k++) {
                        ps.setString(1, "q");
                        ps.setBytes(2, payload);
                        ps.addBatch();
                    }
                    ps.executeBatch();
                }
                return null;
            });
        }
    }

    static long[] select(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("select id, priority, enqueued_at, attempts, headers, payload, group_key"
                + " from v_message where queue = ? and visible_at <= " + NOW + " order by priority desc, visible_at, id limit ?"
                + " for update skip locked")) {
            ps.setString(1, "q");
            ps.setInt(2, 100);
            long[] ids = new long[100];
            int k = 0;
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids[k++] = rs.getLong(1);
                    rs.getBytes(6);
                    rs.getString(5);
                }
            }
            return Arrays.copyOf(ids, k);
        }
    }

    static final ThreadLocal<long[]> PREV = ThreadLocal.withInitial(() -> new long[0]);

    static int combo(HikariDataSource ds) throws Exception {
        long token = ThreadLocalRandom.current().nextLong() | 1L;
        long[] prev = PREV.get();
        long[] ids = tx(ds, c -> {
            if (prev.length > 0) {
                try (PreparedStatement ps = c.prepareStatement("delete from v_message where id in " + in(prev))) {
                    for (int i = 0; i < prev.length; i++) {
                        ps.setLong(i + 1, prev[i]);
                    }
                    ps.executeUpdate();
                }
            }
            long[] got = select(c);
            if (got.length > 0) {
                try (PreparedStatement ps = c.prepareStatement("update v_message set lease_token = ?, attempts = attempts + 1, claimed_at = " + NOW
                        + ", visible_at = " + NOW + " + 30000 where id in " + in(got))) {
                    ps.setLong(1, token);
                    for (int i = 0; i < got.length; i++) {
                        ps.setLong(i + 2, got[i]);
                    }
                    ps.executeUpdate();
                }
            }
            return got;
        });
        PREV.set(ids);
        return prev.length;
    }

    static int step(HikariDataSource ds, String v) throws Exception {
        if (v.equals("combo")) {
            return combo(ds);
        }
        long token = ThreadLocalRandom.current().nextLong() | 1L;
        boolean inList = v.contains("in");
        long[] ids = tx(ds, c -> {
            long[] got = select(c);
            if (got.length == 0) {
                return got;
            }
            String upd = "update v_message set lease_token = ?, attempts = attempts + 1, claimed_at = " + NOW
                    + ", visible_at = " + NOW + " + 30000 where ";
            if (inList) {
                try (PreparedStatement ps = c.prepareStatement(upd + "id in " + in(got))) {
                    ps.setLong(1, token);
                    for (int i = 0; i < got.length; i++) {
                        ps.setLong(i + 2, got[i]);
                    }
                    ps.executeUpdate();
                }
            } else {
                try (PreparedStatement ps = c.prepareStatement(upd + "id = ?")) {
                    for (long id : got) {
                        ps.setLong(1, token);
                        ps.setLong(2, id);
                        ps.addBatch();
                    }
                    ps.executeBatch();
                }
            }
            return got;
        });
        if (ids.length == 0) {
            return 0;
        }
        return tx(ds, c -> {
            if (v.endsWith("token")) {
                try (PreparedStatement ps = c.prepareStatement("delete from v_message where lease_token = ? and id in " + in(ids))) {
                    ps.setLong(1, token);
                    for (int i = 0; i < ids.length; i++) {
                        ps.setLong(i + 2, ids[i]);
                    }
                    return ps.executeUpdate();
                }
            }
            if (inList) {
                try (PreparedStatement ps = c.prepareStatement("delete from v_message where id in " + in(ids))) {
                    for (int i = 0; i < ids.length; i++) {
                        ps.setLong(i + 1, ids[i]);
                    }
                    return ps.executeUpdate();
                }
            }
            try (PreparedStatement ps = c.prepareStatement("delete from v_message where id = ?")) {
                for (long id : ids) {
                    ps.setLong(1, id);
                    ps.addBatch();
                }
                ps.executeBatch();
                return ids.length;
            }
        });
    }
}
