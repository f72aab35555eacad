package io.cyclium.episode;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class EpisodeIdsTest {

    @Test
    void an_id_is_a_version_7_uuid_whose_first_48_bits_are_the_clocks_milliseconds() {
        Instant at = Instant.parse("2026-12-03T18:40:12.345Z");
        UUID id = UUID.fromString(new EpisodeIds(Clock.fixed(at, ZoneOffset.UTC)).next());
        assertThat(id.version()).isEqualTo(7);
        assertThat(id.variant()).as("the IETF variant, bits 10").isEqualTo(2);
        assertThat(id.getMostSignificantBits() >>> 16).isEqualTo(at.toEpochMilli());
    }

    @Test
    void ids_of_a_later_millisecond_sort_after_earlier_ones_as_text() {
        Instant start = Instant.parse("2026-12-03T18:40:00Z");
        List<String> made = new ArrayList<>();
        for (int ms = 0; ms < 1_000; ms += 7) {
            made.add(new EpisodeIds(Clock.fixed(start.plusMillis(ms), ZoneOffset.UTC)).next());
        }
        // the database compares the 36-character text: that order must be the order of creation
        assertThat(made).isSorted();
    }

    @Test
    void two_hundred_thousand_ids_of_one_millisecond_from_four_threads_are_all_distinct() throws Exception {
        EpisodeIds ids = new EpisodeIds(Clock.fixed(Instant.parse("2026-12-03T18:40:00Z"), ZoneOffset.UTC));
        Set<String> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            Thread thread = new Thread(() -> {
                for (int i = 0; i < 50_000; i++) {
                    seen.add(ids.next());
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(seen).hasSize(200_000);
        Set<Long> prefixes = new HashSet<>();
        seen.forEach(s -> prefixes.add(UUID.fromString(s).getMostSignificantBits() >>> 16));
        assertThat(prefixes).as("one millisecond in every id").hasSize(1);
    }
}
