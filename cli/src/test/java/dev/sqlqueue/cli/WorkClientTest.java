package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueClient;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.Receipt;
import dev.sqlqueue.SqlQueue;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** work's client on a real H2 database: acks of concurrent workers share commits; claims follow run times. */
class WorkClientTest {
    @TempDir
    Path dir;

    @Test
    void acksOfEightWorkersAreGroupCommitted() throws Exception {
        Cli cli = new Cli(dir);
        QueueName q = QueueName.of("group");
        try (SqlQueue real = cli.client()) {
            real.createQueue(q);
            for (int i = 0; i < 8; i++) {
                real.enqueue(q, Message.builder(("m" + i).getBytes(StandardCharsets.UTF_8)).build());
            }
            List<Delivery> claimed = real.consume(q, ConsumeRequest.of(8));
            assertEquals(8, claimed.size());
            AtomicInteger calls = new AtomicInteger();
            AtomicInteger entered = new AtomicInteger();
            CountDownLatch allIn = new CountDownLatch(1);
            // the real client, counting its ackAll calls; the first one waits until every worker has asked
            QueueClient counting = (QueueClient) Proxy.newProxyInstance(QueueClient.class.getClassLoader(),
                    new Class<?>[] {QueueClient.class}, (proxy, m, args) -> {
                        if (m.getName().equals("ackAll") && calls.incrementAndGet() == 1) {
                            allIn.await(10, TimeUnit.SECONDS);
                            Thread.sleep(200); // the seven others are now waiting in the group
                        }
                        try {
                            return m.invoke(real, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
            QueueClient work = new WorkClient(counting, true, false).client();
            ExecutorService pool = Executors.newFixedThreadPool(8);
            List<Future<Set<Receipt>>> results = new ArrayList<>();
            for (Delivery d : claimed) {
                results.add(pool.submit(() -> {
                    if (entered.incrementAndGet() == 8) {
                        allIn.countDown();
                    }
                    Collection<Receipt> one = List.of(d.receipt());
                    return work.ackAll(one);
                }));
            }
            for (Future<Set<Receipt>> f : results) {
                assertTrue(f.get(30, TimeUnit.SECONDS).isEmpty(), "no lease lost");
            }
            pool.shutdown();
            assertEquals(0, real.stats(q).depth(), "all eight acked");
            assertEquals(8, real.stats(q).processed());
            assertTrue(calls.get() <= 2, "eight acks in " + calls.get() + " commits");
        }
    }

    @Test
    void claimsFollowTheRunTimeOfCommands() {
        WorkClient adaptive = new WorkClient(null, true, true);
        assertEquals(1, adaptive.claimSize(32), "one at a time until a command has run");
        adaptive.ran(TimeUnit.SECONDS.toNanos(5));
        assertEquals(1, adaptive.claimSize(32), "slow commands: one at a time");
        WorkClient quick = new WorkClient(null, true, true);
        quick.ran(TimeUnit.MILLISECONDS.toNanos(2));
        assertEquals(32, quick.claimSize(32), "2 ms commands: a full batch (about 100 ms of work, at most 32)");
        quick.ran(TimeUnit.MILLISECONDS.toNanos(2));
        assertEquals(32, quick.claimSize(32));
        WorkClient tenMs = new WorkClient(null, true, true);
        tenMs.ran(TimeUnit.MILLISECONDS.toNanos(10));
        assertEquals(10, tenMs.claimSize(32));
        assertEquals(5, new WorkClient(null, true, false).claimSize(5), "a fixed --batch-size is kept");
    }

    @Test
    void aBadBatchSizeIsRefused() {
        Cli.Run r = new Cli(dir).run("work", "-q", "x", "--batch-size", "lots", "--exec", "true");
        assertEquals(ExitCodes.USAGE, r.code(), r::toString);
        assertTrue(r.err().contains("--batch-size must be a number 1..1000 or auto"), r::toString);
    }
}
