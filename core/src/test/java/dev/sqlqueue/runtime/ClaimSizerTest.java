package dev.sqlqueue.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The sizing rule of a worker thread's claims (issue 16): start small, jump when deep, shrink when shallow. */
class ClaimSizerTest {
    @Test
    void firstClaimAsksForOneMessage() {
        assertEquals(1, new ClaimSizer(100, 30_000).next());
    }

    @Test
    void aFullClaimMakesTheNextOneAsLargeAsAllowed() {
        ClaimSizer s = new ClaimSizer(100, 30_000);
        s.claimed(1, 1);
        // one step to the maximum: doubling took 7 claims (1, 2, ..., 64, 100) per thread to get there
        assertEquals(100, s.next());
    }

    @Test
    void aShortClaimShrinksToWhatCameBackAndNeverBelowOne() {
        ClaimSizer s = new ClaimSizer(100, 30_000);
        s.claimed(1, 1);
        s.claimed(100, 7);
        assertEquals(7, s.next());
        s.claimed(7, 0);
        assertEquals(1, s.next());
    }

    @Test
    void slowHandlersAreClaimedOneAtATime() {
        ClaimSizer s = new ClaimSizer(100, 30_000);
        s.claimed(1, 1);
        s.handled(250_000_000L); // 250 ms, more than the 100 ms a claim aims at
        assertEquals(1, s.next());
    }

    @Test
    void theTimeBudgetCapsTheJump() {
        ClaimSizer s = new ClaimSizer(100, 30_000);
        s.claimed(1, 1);
        s.handled(10_000_000L); // 10 ms each: 100 ms of work is 10 messages
        assertEquals(10, s.next());
    }

    @Test
    void aShortLeaseLowersTheBudget() {
        ClaimSizer s = new ClaimSizer(100, 200); // a quarter of the lease: 50 ms
        s.claimed(1, 1);
        s.handled(10_000_000L);
        assertEquals(5, s.next());
    }
}
