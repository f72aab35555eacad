package io.cyclium.claims;

import io.cyclium.testing.MutableClock;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.claims.Acquisition.Acquired;
import io.cyclium.claims.Acquisition.Busy;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The contract in memory, plus the fake's own means of simulating the rest of a cluster. */
class FakeWorkClaimsTest extends WorkClaimsContract {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private FakeWorkClaims fake;

    @Override
    WorkClaims newClaims() {
        fake = new FakeWorkClaims(clock);
        return fake;
    }

    @Override
    void lapse(String key) {
        fake.lapse(key);
    }

    @Test
    void set_busy_makes_acquires_busy_and_takes_the_key_from_its_holder() {
        String key = key();
        ClaimRecord mine = acquired(key, nodeA);

        fake.setBusy(key);

        assertThat(claims.acquire(key, nodeB, LEASE, EPISODE)).isInstanceOf(Busy.class);
        assertThat(claims.ownsAtFence(key, nodeA, mine.fence())).isFalse();
        assertThat(claims.renew(key, nodeA, LEASE)).isFalse();
        assertThat(claims.find(key).orElseThrow().owner()).isEqualTo(FakeWorkClaims.OTHER_OWNER);
    }

    @Test
    void clear_busy_lets_the_next_acquire_take_the_key_over_at_a_new_fence() {
        String key = key();
        fake.setBusy(key);

        fake.clearBusy(key);

        assertThat(claims.acquire(key, nodeA, LEASE, EPISODE)).isInstanceOfSatisfying(Acquired.class, acq -> {
            assertThat(acq.takeover()).isTrue();
            assertThat(acq.claim().fence()).isEqualTo(2);
        });
    }

    @Test
    void leases_run_on_the_given_clock() {
        String key = key();
        acquired(key, nodeA);

        clock.advance(Duration.ofSeconds(LEASE - 1));
        assertThat(claims.acquire(key, nodeB, LEASE, EPISODE)).isInstanceOf(Busy.class);

        clock.advance(Duration.ofSeconds(2));
        assertThat(claims.acquire(key, nodeB, LEASE, EPISODE)).isInstanceOf(Acquired.class);
    }

    /** A clock tests move by hand. */
}
